package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/core/session"
	"github.com/spf13/pflag"
)

// sessionFlags are the established harness's session options beyond
// --session/--continue/--resume/--no-session: --fork, --session-id and
// --name.
type sessionFlags struct {
	fork      string
	sessionID string
	name      optionalString
	// parent is the parentSession of a new session (RPC new_session).
	parent string
}

// optionalString is a string flag that knows whether it was given (an
// empty --name is an error, not "no name").
type optionalString struct {
	value string
	set   bool
}

func (o *optionalString) String() string { return o.value }
func (o *optionalString) Set(v string) error {
	o.value, o.set = v, true
	return nil
}
func (o *optionalString) Type() string { return "string" }

func (s *sessionFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.fork, "fork", "", "copy a session (file, or id or id prefix) into a new session of this directory and continue there")
	fs.StringVar(&s.sessionID, "session-id", "", "id of the new session (or open this directory's session with that id)")
	fs.VarP(&s.name, "name", "n", "set the session's display name")
}

// check refuses combinations the established harness refuses.
func (r *runFlags) checkSessionFlags() error {
	s := &r.sess
	conflicts := func(names ...string) []string {
		var out []string
		for i := 0; i+1 < len(names); i += 2 {
			if names[i+1] != "" {
				out = append(out, names[i])
			}
		}
		return out
	}
	on := func(b bool) string {
		if b {
			return "y"
		}
		return ""
	}
	if s.fork != "" {
		if c := conflicts("--session", r.sessionFile, "--continue", on(r.cont), "--resume", on(r.resume), "--no-session", on(r.noSession)); len(c) > 0 {
			return usagef("--fork cannot be combined with %s", strings.Join(c, ", "))
		}
	}
	if s.sessionID != "" {
		if c := conflicts("--session", r.sessionFile, "--continue", on(r.cont), "--resume", on(r.resume)); len(c) > 0 {
			return usagef("--session-id cannot be combined with %s", strings.Join(c, ", "))
		}
		if err := session.CheckID(s.sessionID); err != nil {
			return usagef("--session-id: %v", err)
		}
	}
	if s.name.set && sessionName(s.name.value) == "" {
		return usagef("--name requires a non-empty value")
	}
	return nil
}

// sessionName is a name as stored: one line, trimmed.
func sessionName(s string) string {
	return strings.TrimSpace(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " "))
}

// resolveSessionArg turns --session or --fork's argument into a file: a
// path as it is, otherwise a session id or id prefix, this directory's
// sessions first, then every directory's.
func (a *app) resolveSessionArg(dir, cwd, arg string) (session.Found, error) {
	if session.LooksLikePath(arg) {
		return session.Found{Path: arg}, nil
	}
	f, ok := session.FindByID(dir, cwd, arg)
	if !ok {
		return session.Found{}, session.ErrNotFound(arg)
	}
	return f, nil
}

// forkSession copies the session --fork names into a new session of cwd.
func (a *app) forkSession(dir, cwd string, r *runFlags) (*session.Transcript, error) {
	id := r.sess.sessionID
	if id != "" {
		if _, taken := session.FindExact(dir, cwd, id); taken {
			return nil, fmt.Errorf("Session already exists with id '%s'", id)
		}
	} else {
		var err error
		if id, err = session.NewID(); err != nil {
			return nil, err
		}
	}
	src, err := a.resolveSessionArg(dir, cwd, r.sess.fork)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	h := session.Header{ID: id, Cwd: cwd, Timestamp: now.UTC().Format("2006-01-02T15:04:05.000Z")}
	return session.CopyInto(src.Path, session.NewPathIn(dir, id, now), h)
}

// sessionByID opens --session's id: a session of another directory is
// not continued here (its files and context belong there); --fork copies
// it.
func (a *app) sessionByID(dir, cwd, arg string) (string, error) {
	f, err := a.resolveSessionArg(dir, cwd, arg)
	if err != nil {
		return "", err
	}
	if f.Elsewhere {
		return "", fmt.Errorf("session %s belongs to %s; to continue it here, copy it with --fork %s", f.Header.ID, f.Header.Cwd, arg)
	}
	return filepath.Clean(f.Path), nil
}
