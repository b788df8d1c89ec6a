package provider

import (
	"context"
	"sync"
	"sync/atomic"
)

// RetryControl lets a front end turn a Client's retries off and on while it
// runs and cut short a wait before a retry (RPC set_auto_retry and
// abort_retry). The zero value has retries on.
type RetryControl struct {
	off atomic.Bool

	mu     sync.Mutex
	cancel context.CancelFunc
}

// SetEnabled turns retries on or off for the requests that fail from now on.
func (r *RetryControl) SetEnabled(on bool) { r.off.Store(!on) }

// Enabled reports whether failed requests are retried.
func (r *RetryControl) Enabled() bool { return !r.off.Load() }

// Abort ends the wait before a retry now under way, if any: the request
// then fails with the error that caused the retry. It reports whether a
// wait was ended.
func (r *RetryControl) Abort() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel == nil {
		return false
	}
	r.cancel()
	r.cancel = nil
	return true
}

// waiting gives a retry wait a context Abort can end; done forgets it.
func (r *RetryControl) waiting(ctx context.Context) (context.Context, func()) {
	wctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	return wctx, func() {
		r.mu.Lock()
		r.cancel = nil
		r.mu.Unlock()
		cancel()
	}
}
