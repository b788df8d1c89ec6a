package sandbox

import (
	"context"

	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/core/tool/builtin"
)

// Guard returns the built-in file tools' Guard for p: reading where
// [Policy.CheckRead] allows it, writing where [Policy.CheckWrite] does.
func (p *Policy) Guard() func(op builtin.Access, resolved string) error {
	return func(op builtin.Access, resolved string) error {
		if op != builtin.Write {
			return p.CheckRead(resolved)
		}
		return p.CheckWrite(resolved)
	}
}

// Apply returns env with p's Guard (after any Guard env already has) and
// a [Shell] that starts bash through exe, the pi executable (the bash of
// env's [builtin.BashShell], when it names one).
func (p *Policy) Apply(env builtin.Env, exe string) builtin.Env {
	g := p.Guard()
	if prev := env.Guard; prev != nil {
		env.Guard = func(op builtin.Access, resolved string) error {
			if err := prev(op, resolved); err != nil {
				return err
			}
			return g(op, resolved)
		}
	} else {
		env.Guard = g
	}
	// grep, find and ls apply the read deny list to every entry they
	// pass, not only to the path they were given.
	if prev := env.Visit; prev != nil {
		env.Visit = func(tool, resolved string) error {
			if err := prev(tool, resolved); err != nil {
				return err
			}
			return p.CheckRead(resolved)
		}
	} else if p.paths != nil {
		// Whether the deny list is empty is not asked here, which would
		// make it (see lazyPaths) in every run: CheckRead allows all
		// when it is.
		env.Visit = func(_, resolved string) error { return p.CheckRead(resolved) }
	}
	sh := Shell{Policy: p, Exe: exe}
	if b, ok := env.Shell.(builtin.BashShell); ok {
		// The user's choice of shell (settings shellPath) stays.
		sh.Bash = b.Path
	}
	env.Shell = sh
	return env
}

// AnnotateBash wraps the tool named "bash" in tools so that a failed call
// whose output looks like a sandbox denial gets [Policy.Explain]'s note as
// an extra text part. Other tools are returned unchanged.
func (p *Policy) AnnotateBash(tools []tool.Tool) []tool.Tool {
	out := append([]tool.Tool(nil), tools...)
	for i := range out {
		if out[i].Name != "bash" || out[i].Run == nil {
			continue
		}
		run := out[i].Run
		out[i].Run = func(ctx context.Context, call tool.Call, update tool.Update) (tool.Result, error) {
			var before protectedFiles
			sweep := p.Confined() && p.Mode == ModeWorkspace
			if sweep {
				before = p.snapshot()
			}
			mark := 0
			if p.proxy != nil {
				mark = p.proxy.mark()
			}
			res, err := run(ctx, call, update)
			var refused []refusal
			if p.proxy != nil {
				// Hosts the proxy refused while the command ran (another
				// command running at the same time may add its own).
				refused = p.proxy.refusedSince(mark)
			}
			switch {
			case err == nil && res.IsError:
				if note := p.Explain(res.Text(), 1); note != "" || len(refused) > 0 {
					if len(refused) > 0 {
						// The recorded refusals name the hosts even when
						// the program's message does not (curl prints only
						// "CONNECT tunnel failed, response 403").
						note = p.explainWith(res.Text(), refused)
					}
					res.Content = append(append([]tool.Part(nil), res.Content...), tool.Part{Type: "text", Text: note})
				}
			case err == nil && len(refused) > 0:
				// A program may carry on after a refused request (curl
				// without -f exits 0 on a 403): the result still says.
				res.Content = append(append([]tool.Part(nil), res.Content...), tool.Part{Type: "text", Text: p.netAllowNote(res.Text(), refused)})
			}
			if sweep {
				// Also after a call that failed to finish: what it left
				// behind must not take effect later either.
				if note := p.sweep(before); note != "" && err == nil {
					res.IsError = true
					res.Content = append(append([]tool.Part(nil), res.Content...), tool.Part{Type: "text", Text: note})
				}
			}
			return res, err
		}
	}
	return out
}
