package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Defaults of [FetchOptions].
const (
	DefaultAnswerTimeout = 30 * time.Second
	DefaultStallTimeout  = 30 * time.Second
	DefaultProgressEvery = time.Second
)

// Phases of a download, in [FetchProgress].Phase.
const (
	PhaseConnecting  = "connecting"  // the request is sent, no answer yet
	PhaseDownloading = "downloading" // the server answered; receiving the body
	PhaseDone        = "done"        // received in full (verification follows)
	PhaseFailed      = "failed"      // see Err; Fetch tries the next location
)

// FetchProgress is one report on a download, given to
// [FetchOptions].Progress.
type FetchProgress struct {
	URL     string
	Path    string // where the file goes
	Phase   string // PhaseConnecting, PhaseDownloading, PhaseDone or PhaseFailed
	Bytes   int64  // received so far
	Total   int64  // the length the server announced, −1 if unknown
	Elapsed time.Duration
	Idle    time.Duration // since the last byte arrived (or the request was sent)
	Err     error         // why it failed, for PhaseFailed
}

// errNoAnswer and errStalled are the causes with which a download's
// context is cancelled by its timers.
var (
	errNoAnswer = errors.New("no answer")
	errStalled  = errors.New("stalled")
)

// transfer tracks one download for its timers and progress reports.
type transfer struct {
	mu     sync.Mutex
	p      FetchProgress
	start  time.Time
	last   time.Time // of the last byte, or the request
	report func(FetchProgress)
}

func (t *transfer) update(phase string, n int64, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if n > 0 {
		t.p.Bytes += n
		t.last = now
	}
	if phase != "" {
		t.p.Phase = phase
	}
	t.p.Err = err
	if t.report != nil && (phase != "" || n < 0) { // n < 0: a tick
		t.p.Elapsed, t.p.Idle = now.Sub(t.start), now.Sub(t.last)
		t.report(t.p)
	}
}

// idle returns the time since the last byte (or the request).
func (t *transfer) idle() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return time.Since(t.last)
}

// download fetches u into dst atomically, verifying it as f. It gives up
// when the server does not answer within o.AnswerTimeout or sends nothing
// for o.StallTimeout.
func download(ctx context.Context, client *http.Client, u, dst string, f File, o *FetchOptions) (check string, err error) {
	answer, stall, every := o.AnswerTimeout, o.StallTimeout, o.ProgressEvery
	if answer <= 0 {
		answer = DefaultAnswerTimeout
	}
	if stall <= 0 {
		stall = DefaultStallTimeout
	}
	if every <= 0 {
		every = DefaultProgressEvery
	}
	now := time.Now()
	t := &transfer{p: FetchProgress{URL: u, Path: dst, Total: -1}, start: now, last: now, report: o.Progress}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// One goroutine watches the timeouts and reports progress.
	answered := make(chan struct{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(min(every, answer/4, stall/4))
		defer tick.Stop()
		lastReport := time.Now()
		ans := false
		for {
			select {
			case <-stop:
				return
			case <-answered:
				ans, answered = true, nil
			case now := <-tick.C:
				idle := t.idle()
				switch {
				case !ans && idle >= answer:
					cancel(fmt.Errorf("%w within %v", errNoAnswer, answer))
					return
				case ans && idle >= stall:
					cancel(fmt.Errorf("%w: nothing received for %v", errStalled, stall))
					return
				}
				if now.Sub(lastReport) >= every {
					lastReport = now
					t.update("", -1, nil)
				}
			}
		}
	}()
	defer func() {
		close(stop)
		wg.Wait()
		if err != nil {
			// A timeout shows as a cancelled request: say which.
			if c := context.Cause(rctx); ctx.Err() == nil && (errors.Is(c, errNoAnswer) || errors.Is(c, errStalled)) {
				err = timeoutError(c, t)
			}
			t.update(PhaseFailed, 0, err)
		}
	}()
	t.update(PhaseConnecting, 0, nil)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	t.mu.Lock()
	t.p.Total, t.last = resp.ContentLength, time.Now()
	t.mu.Unlock()
	close(answered)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	t.update(PhaseDownloading, 0, nil)
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, io.LimitReader(countingReader{resp.Body, t}, MaxDownload+1))
	if err != nil {
		return "", err
	}
	if n > MaxDownload {
		return "", fmt.Errorf("larger than %d bytes", MaxDownload)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", fmt.Errorf("got %d of %d bytes", n, resp.ContentLength)
	}
	t.update(PhaseDone, 0, nil)
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	st := verifyPath(tmp.Name(), f)
	if !st.OK {
		return "", fmt.Errorf("%s; not saved", st.Check)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	if err = os.Rename(tmp.Name(), dst); err != nil {
		return "", err
	}
	if d, err := os.Open(filepath.Dir(dst)); err == nil {
		d.Sync() // make the rename durable; not all systems support it
		d.Close()
	}
	return fmt.Sprintf("%d bytes, %s", n, st.Check), nil
}

// timeoutError words a download's timeout: how long it waited and what it
// had received.
func timeoutError(cause error, t *transfer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if errors.Is(cause, errNoAnswer) {
		return fmt.Errorf("the server did not answer: %v", cause)
	}
	got := fmt.Sprintf("%d bytes", t.p.Bytes)
	if t.p.Total >= 0 {
		got += fmt.Sprintf(" of %d", t.p.Total)
	}
	return fmt.Errorf("download %v, after %s", cause, got)
}

// countingReader reports the bytes read through it to its transfer.
type countingReader struct {
	r io.Reader
	t *transfer
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.t.update("", int64(n), nil)
	}
	return n, err
}
