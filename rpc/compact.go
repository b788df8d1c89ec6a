package rpc

import "errors"

// compaction answers compact (a manual compaction of the idle session,
// with customInstructions as its focus; the answer is the result, as the
// established harness gives it) and set_auto_compaction ({enabled}).
func (s *Server) compaction(c rpcCommand) {
	rt := s.h.Runtime
	switch c.Type {
	case "set_auto_compaction":
		if c.Enabled == nil {
			s.respond(c, nil, errors.New("set_auto_compaction needs enabled: true or false"))
			return
		}
		rt.SetAutoCompaction(*c.Enabled)
		s.respond(c, nil, nil)
	case "compact":
		// The summary takes a model request: answer when it is done,
		// reading further commands meanwhile (abort among them).
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			res, err := rt.Compact(c.CustomInstructions)
			if err != nil {
				s.respond(c, nil, err)
				return
			}
			s.respond(c, res, nil)
		}()
	}
}
