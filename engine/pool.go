package engine

import (
	"runtime"
	"sync/atomic"
	"time"
)

// pool runs the tasks of one phase of a minibatch on a fixed set of
// goroutines. It exists, instead of an errgroup per phase, so that a
// minibatch allocates nothing: the goroutines live as long as the Train
// call, and a phase is a function value bound once. Which goroutine runs a
// task never changes a result: tasks write disjoint memory, and every
// reduction is done afterwards in a fixed order.
//
// Between phases a helper spins for up to spinFor before it sleeps: phases
// follow each other within microseconds while training, and waking a
// sleeping goroutine (through the OS, on another CPU) cost 6–9% of a
// two-worker minibatch on the Zen 4 VM (BenchmarkMinibatch/ncg/workers2,
// interleaved runs: 2.22–2.35 → 2.08–2.19 s/epoch).
type pool struct {
	workers int
	ph      phase        // the current phase; written before gen moves
	gen     atomic.Int64 // phases started
	done    atomic.Int64 // helpers finished with the current phase
	stop    atomic.Bool
	helpers []helper
}

type helper struct {
	asleep atomic.Bool
	wake   chan struct{} // one token per sleep
}

const spinFor = 50 * time.Microsecond

type phase struct {
	fn    func(task int)
	tasks int
	next  *atomic.Int64
	busy  *atomic.Int64 // if not nil: nanoseconds each goroutine spent on tasks, summed
}

func newPool(workers int) *pool {
	p := &pool{workers: workers, helpers: make([]helper, max(workers-1, 0))}
	for w := range p.helpers {
		p.helpers[w].wake = make(chan struct{}, 1)
		go p.help(&p.helpers[w])
	}
	return p
}

// help runs every phase's tasks alongside the caller of run until close.
func (p *pool) help(h *helper) {
	var seen int64
	for {
		if !p.waitPhase(h, seen) {
			return
		}
		seen = p.gen.Load()
		p.ph.drain()
		p.done.Add(1)
	}
}

// waitPhase returns when a phase after seen has started (true) or the pool
// is closed (false): it spins for spinFor, then sleeps until run or close
// wakes it.
func (p *pool) waitPhase(h *helper, seen int64) bool {
	start := time.Now()
	for i := 0; ; i++ {
		if p.stop.Load() {
			return false
		}
		if p.gen.Load() != seen {
			return true
		}
		if i%64 == 63 && time.Since(start) > spinFor {
			break
		}
		runtime.Gosched()
	}
	for {
		// A swap, not a store: the check below must not be seen before
		// asleep is set, or run can miss this helper (its CAS reads false)
		// while the helper misses the phase, and both wait forever. Go's
		// atomics promise that order either way, but under qemu-aarch64 on
		// x86 a plain store hung TestSameResultAnyWorkers in 1 of 34 runs
		// (caller in run, helper asleep; it failed CI once). Likely cause:
		// qemu's translation does not keep a store-release before a later
		// load-acquire; a swap is a locked exchange, a full barrier there.
		h.asleep.Swap(true)
		if p.gen.Load() != seen || p.stop.Load() {
			if !h.asleep.CompareAndSwap(true, false) {
				<-h.wake // run or close sent a token after all: take it
			}
			return !p.stop.Load()
		}
		<-h.wake
		if p.stop.Load() {
			return false
		}
		if p.gen.Load() != seen {
			return true
		}
	}
}

func (p *pool) wakeAll() {
	for w := range p.helpers {
		if p.helpers[w].asleep.CompareAndSwap(true, false) {
			p.helpers[w].wake <- struct{}{}
		}
	}
}

func (ph *phase) drain() {
	if ph.busy != nil {
		start := time.Now()
		defer func() { ph.busy.Add(int64(time.Since(start))) }()
	}
	for {
		t := int(ph.next.Add(1)) - 1
		if t >= ph.tasks {
			return
		}
		ph.fn(t)
	}
}

// run calls fn(t) for t in [0, tasks) on the pool and waits for all. If
// busy is not nil, the time each goroutine spends on the tasks is added to
// it.
func (p *pool) run(tasks int, fn func(task int), next, busy *atomic.Int64) {
	next.Store(0)
	p.ph = phase{fn: fn, tasks: tasks, next: next, busy: busy}
	p.done.Store(0)
	p.gen.Add(1)
	p.wakeAll()
	p.ph.drain()
	for p.done.Load() < int64(len(p.helpers)) {
		runtime.Gosched()
	}
}

func (p *pool) close() {
	p.stop.Store(true)
	p.wakeAll()
}
