package engine

import (
	"sync"
	"sync/atomic"
)

// pool runs the tasks of one phase of a minibatch on a fixed set of
// goroutines. It exists, instead of an errgroup per phase, so that a
// minibatch allocates nothing: the goroutines live as long as the Train
// call, and a phase is a function value bound once. Which goroutine runs a
// task never changes a result: tasks write disjoint memory, and every
// reduction is done afterwards in a fixed order.
type pool struct {
	workers int
	start   []chan phase
	wg      sync.WaitGroup
}

type phase struct {
	fn    func(task int)
	tasks int
	next  *atomic.Int64
}

func newPool(workers int) *pool {
	p := &pool{workers: workers}
	for w := 1; w < workers; w++ {
		ch := make(chan phase)
		p.start = append(p.start, ch)
		go func() {
			for ph := range ch {
				ph.drain()
				p.wg.Done()
			}
		}()
	}
	return p
}

func (ph phase) drain() {
	for {
		t := int(ph.next.Add(1)) - 1
		if t >= ph.tasks {
			return
		}
		ph.fn(t)
	}
}

// run calls fn(t) for t in [0, tasks) on the pool and waits for all.
func (p *pool) run(tasks int, fn func(task int), next *atomic.Int64) {
	next.Store(0)
	ph := phase{fn: fn, tasks: tasks, next: next}
	helpers := min(len(p.start), tasks-1)
	p.wg.Add(helpers)
	for w := 0; w < helpers; w++ {
		p.start[w] <- ph
	}
	ph.drain()
	p.wg.Wait()
}

func (p *pool) close() {
	for _, ch := range p.start {
		close(ch)
	}
}
