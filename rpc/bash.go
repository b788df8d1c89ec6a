package rpc

import (
	"context"
	"errors"
)

// startBash gives a bash command a context abort_bash can cancel; done
// forgets it when the command has ended.
func (s *Server) startBash(ctx context.Context) (context.Context, func()) {
	bctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bashes == nil {
		s.bashes = map[int]context.CancelFunc{}
	}
	id := s.nextBash
	s.nextBash++
	s.bashes[id] = cancel
	return bctx, func() {
		cancel()
		s.mu.Lock()
		delete(s.bashes, id)
		s.mu.Unlock()
	}
}

// abortBash cancels every bash command still running, as the established
// harness's abort_bash does: each answers with cancelled set.
func (s *Server) abortBash() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.bashes {
		cancel()
	}
}

// retry answers set_auto_retry (retries of failed requests off or on from
// now) and abort_retry (end the wait before a retry; the run then fails
// with the error that caused it).
func (s *Server) retry(c rpcCommand) {
	r := s.h.Runtime.Runner()
	if r == nil || r.Client == nil || r.Client.Control == nil {
		s.respond(c, nil, errors.New("this session's model does not retry (a replay)"))
		return
	}
	if c.Type == "abort_retry" {
		r.Client.Control.Abort()
		s.respond(c, nil, nil)
		return
	}
	if c.Enabled == nil {
		s.respond(c, nil, errors.New("set_auto_retry needs enabled: true or false"))
		return
	}
	r.Client.Control.SetEnabled(*c.Enabled)
	s.respond(c, nil, nil)
}
