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
// sleeping goroutine goes through the OS.
//
// Each worker owns a contiguous share of every phase's tasks and runs it
// first to last; a worker that runs out takes the tasks left in the other
// shares from their ends. So a worker updates the same rows of the model
// (and advances the same chains) minibatch after minibatch, and they stay
// in its core's caches; only what the phases exchange crosses between
// cores. A single shared counter would hand each row to whichever worker
// comes first, moving the model between the cores every minibatch.
type pool struct {
	workers int
	ph      phase        // the current phase; written before gen moves
	ranges  []taskRange  // each worker's share of the current phase's tasks
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
	fn   func(task int)
	fnW  func(task, worker int) // instead of fn, for tasks that use their worker's scratch
	busy *atomic.Int64          // if not nil: nanoseconds each goroutine spent on tasks, summed
}

// taskRange is the tasks [lo, hi) not yet taken of one worker's share,
// packed into one word (lo in the high half) so that its owner can take
// from the front and the other workers from the back with one CAS each.
// Padded to a cache line of its own.
type taskRange struct {
	r atomic.Uint64
	_ [56]byte
}

func (t *taskRange) set(lo, hi int) { t.r.Store(uint64(lo)<<32 | uint64(hi)) }

// take returns the first (front) or last task not yet taken, or −1.
func (t *taskRange) take(front bool) int {
	for {
		old := t.r.Load()
		lo, hi := int(old>>32), int(old&0xffffffff)
		if lo >= hi {
			return -1
		}
		task, nu := lo, uint64(lo+1)<<32|uint64(hi)
		if !front {
			task, nu = hi-1, uint64(lo)<<32|uint64(hi-1)
		}
		if t.r.CompareAndSwap(old, nu) {
			return task
		}
	}
}

func newPool(workers int) *pool {
	p := &pool{workers: workers, helpers: make([]helper, max(workers-1, 0)), ranges: make([]taskRange, workers)}
	for w := range p.helpers {
		p.helpers[w].wake = make(chan struct{}, 1)
		go p.help(&p.helpers[w], w+1)
	}
	return p
}

// help runs every phase's tasks alongside the caller of run until close.
func (p *pool) help(h *helper, worker int) {
	var seen int64
	for {
		if !p.waitPhase(h, seen) {
			return
		}
		seen = p.gen.Load()
		p.drain(worker)
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

// drain runs the tasks of worker's share, first to last, then takes the
// other shares' tasks from their ends until none is left.
func (p *pool) drain(worker int) {
	if p.ph.busy != nil {
		start := time.Now()
		defer func() { p.ph.busy.Add(int64(time.Since(start))) }()
	}
	for i := range p.workers {
		r := &p.ranges[(worker+i)%p.workers]
		for {
			t := r.take(i == 0)
			if t < 0 {
				break
			}
			if p.ph.fnW != nil {
				p.ph.fnW(t, worker)
			} else {
				p.ph.fn(t)
			}
		}
	}
}

// run calls fn(t) for t in [0, tasks) on the pool and waits for all. If
// busy is not nil, the time each goroutine spends on the tasks is added to
// it.
func (p *pool) run(tasks int, fn func(task int), busy *atomic.Int64) {
	p.start(tasks, phase{fn: fn, busy: busy})
}

// runWorkers calls fn(t, w) for t in [0, tasks) on the pool and waits for
// all, w being the worker (0 ≤ w < workers) that runs task t: no two
// tasks of one worker run at once, so they can share its scratch.
func (p *pool) runWorkers(tasks int, fn func(task, worker int)) {
	p.start(tasks, phase{fnW: fn})
}

// start runs the phase ph of the given tasks and waits for all.
func (p *pool) start(tasks int, ph phase) {
	for w := range p.ranges {
		p.ranges[w].set(tasks*w/p.workers, tasks*(w+1)/p.workers)
	}
	p.ph = ph
	p.done.Store(0)
	p.gen.Add(1)
	p.wakeAll()
	p.drain(0)
	for p.done.Load() < int64(len(p.helpers)) {
		runtime.Gosched()
	}
}

func (p *pool) close() {
	p.stop.Store(true)
	p.wakeAll()
}
