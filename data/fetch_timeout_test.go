package data

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// progressLog records the progress reports of a fetch.
type progressLog struct {
	mu sync.Mutex
	ps []FetchProgress
}

func (l *progressLog) add(p FetchProgress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ps = append(l.ps, p)
}

func (l *progressLog) phases() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := map[string]int{}
	for _, p := range l.ps {
		m[p.Phase]++
	}
	return m
}

// fetchShort fetches mushrooms from srv with short timeouts and returns
// the error, the time it took and the progress reports. The test's
// context ends after 20 s, far beyond the timeouts, so that a fetch that
// would wait for ever fails the test instead of hanging it.
func fetchShort(t *testing.T, srv *httptest.Server) (error, time.Duration, *progressLog) {
	t.Helper()
	return fetchStall(t, srv, 300*time.Millisecond)
}

// fetchStall is fetchShort with the given stall timeout.
func fetchStall(t *testing.T, srv *httptest.Server, stall time.Duration) (error, time.Duration, *progressLog) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log := &progressLog{}
	start := time.Now()
	err := Fetch(ctx, "mushrooms", t.TempDir(), FetchOptions{Mirror: srv.URL,
		AnswerTimeout: 300 * time.Millisecond, StallTimeout: stall,
		ProgressEvery: 50 * time.Millisecond, Progress: log.add})
	return err, time.Since(start), log
}

// TestFetchGivesUpOnASilentServer: a server that accepts the connection
// but never answers is given up after the answer timeout, with a message
// that says so, and the wait is reported as progress meanwhile.
func TestFetchGivesUpOnASilentServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	err, took, log := fetchShort(t, srv)
	if err == nil || !strings.Contains(err.Error(), "the server did not answer: no answer within 300ms") ||
		!strings.Contains(err.Error(), srv.URL+"/mushrooms/mushrooms") {
		t.Errorf("err = %v", err)
	}
	if took > 5*time.Second {
		t.Errorf("gave up after %v, want about 300ms", took)
	}
	ph := log.phases()
	if ph[PhaseConnecting] < 3 || ph[PhaseFailed] != 1 || ph[PhaseDownloading] != 0 {
		t.Errorf("progress phases %v: want the connection reported while waiting, then the failure", ph)
	}
}

// TestFetchGivesUpOnAStalledDownload: a download that stops receiving is
// given up after the stall timeout, saying how much had arrived.
func TestFetchGivesUpOnAStalledDownload(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write(make([]byte, 100))
		w.(http.Flusher).Flush()
		select { // then nothing
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	err, took, log := fetchShort(t, srv)
	if err == nil || !strings.Contains(err.Error(), "download stalled: nothing received for 300ms, after 100 bytes of 1000") {
		t.Errorf("err = %v", err)
	}
	if took > 5*time.Second {
		t.Errorf("gave up after %v, want about 300ms", took)
	}
	log.mu.Lock()
	last := log.ps[len(log.ps)-1]
	log.mu.Unlock()
	if last.Phase != PhaseFailed || last.Bytes != 100 || last.Total != 1000 {
		t.Errorf("last report %+v", last)
	}
}

// TestFetchKeepsASlowDownload: a download that receives a little at a
// time, never pausing as long as the stall timeout, goes on however long
// it takes in all (here about 5 stall timeouts) until it is complete.
func TestFetchKeepsASlowDownload(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "30")
		for i := 0; i < 15; i++ {
			w.Write([]byte("1 1:1 2:1 3:1\n")[:2])
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	}))
	defer srv.Close()
	// Gaps of 100 ms against a stall timeout of 600 ms: a margin for a
	// loaded machine, and still well under the 1.5 s the body takes.
	err, took, log := fetchStall(t, srv, 600*time.Millisecond)
	// The whole body arrived, and was refused only for its content.
	if err == nil || !strings.Contains(err.Error(), "MD5 mismatch") {
		t.Errorf("err = %v", err)
	}
	if took < 1400*time.Millisecond {
		t.Errorf("took %v: the server sends for 1.5 s", took)
	}
	ph := log.phases()
	if ph[PhaseDownloading] < 5 || ph[PhaseDone] != 1 {
		t.Errorf("progress phases %v", ph)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	var prev int64
	for _, p := range log.ps {
		if p.Bytes < prev || p.Bytes > 30 || (p.Phase == PhaseDownloading && p.Total != 30) {
			t.Errorf("report %+v after %d bytes", p, prev)
		}
		prev = p.Bytes
	}
	if prev != 30 {
		t.Errorf("last report at %d bytes, want 30", prev)
	}
}
