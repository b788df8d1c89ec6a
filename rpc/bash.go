package rpc

import "context"

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
