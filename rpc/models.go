package rpc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/core/export"
	"github.com/piwasm/pi/internal/atomicfile"
)

// The thinking and model commands, and export_html: the controls the
// interactive session has on Shift+Tab, Ctrl+P and /export, with the
// established harness's RPC shapes.
func (s *Server) controls(c rpcCommand) bool {
	rt := s.h.Runtime
	switch c.Type {
	case "get_available_thinking_levels":
		s.respond(c, map[string]any{"levels": rt.Route().AvailableThinkingLevels()}, nil)
	case "set_thinking_level":
		r := rt.Route()
		ok := false
		for _, l := range r.AvailableThinkingLevels() {
			ok = ok || l == c.Level
		}
		if !ok {
			s.respond(c, nil, fmt.Errorf("%s/%s takes the thinking levels %s, not %q", r.Provider, r.ModelID, strings.Join(r.AvailableThinkingLevels(), ", "), c.Level))
			return true
		}
		before := r.ThinkingLevel()
		r.Thinking = c.Level
		if c.Level == "off" {
			r.Thinking = ""
		}
		rt.SetRoute(r)
		s.respond(c, nil, nil)
		s.thinkingChanged(before, rt.Route().ThinkingLevel())
	case "cycle_thinking_level":
		r := rt.Route()
		levels := r.AvailableThinkingLevels()
		if len(levels) < 2 {
			s.respond(c, nil, nil)
			return true
		}
		cur, next := r.ThinkingLevel(), levels[0]
		for i, l := range levels {
			if l == cur {
				next = levels[(i+1)%len(levels)]
			}
		}
		r.Thinking = next
		if next == "off" {
			r.Thinking = ""
		}
		rt.SetRoute(r)
		s.respond(c, map[string]any{"level": next}, nil)
		s.thinkingChanged(cur, rt.Route().ThinkingLevel())
	case "cycle_model":
		s.cycleModel(c)
	case "export_html":
		path := c.OutputPath
		st := rt.State()
		if path == "" {
			path = filepath.Join(s.h.Cwd, "pi-session-"+st.SessionID+".html")
			if st.SessionID == "" {
				path = filepath.Join(s.h.Cwd, "pi-session-"+time.Now().Format("20060102-150405")+".html")
			}
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(s.h.Cwd, path)
		}
		msgs := rt.Messages()
		title := ""
		for _, m := range msgs {
			if m.Role == "user" {
				title, _, _ = strings.Cut(m.Content.Text(), "\n")
				break
			}
		}
		meta := export.Meta{Title: title, SessionID: st.SessionID, Cwd: s.h.Cwd, Model: st.Route.Provider + "/" + st.Route.ModelID}
		if s.h.ExportPalette != nil {
			meta.Palette = s.h.ExportPalette()
		}
		page := export.HTML(meta, msgs)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			s.respond(c, nil, err)
			return true
		}
		if err := atomicfile.Write(path, page, 0o644); err != nil {
			s.respond(c, nil, err)
			return true
		}
		s.respond(c, map[string]any{"path": path}, nil)
	default:
		return false
	}
	return true
}

// cycleModel moves to the next model in scope (the scoped models, else
// every configured one); null data when there is only one.
func (s *Server) cycleModel(c rpcCommand) {
	rt := s.h.Runtime
	var list []string
	scoped := false
	if s.h.ScopedModels != nil {
		if l, err := s.h.ScopedModels(); err == nil && len(l) > 0 {
			list, scoped = l, true
		}
	}
	if list == nil {
		models, err := s.h.Models()
		if err != nil {
			s.respond(c, nil, err)
			return
		}
		for _, m := range models {
			if m.Listed {
				list = append(list, m.Provider+"/"+m.ID)
			}
		}
	}
	r := rt.Route()
	cur := r.Provider + "/" + r.ModelID
	if len(list) == 0 || (len(list) == 1 && list[0] == cur) {
		s.respond(c, nil, nil)
		return
	}
	next := list[0]
	for i, m := range list {
		if m == cur {
			next = list[(i+1)%len(list)]
		}
	}
	prov, id, _ := strings.Cut(next, "/")
	route, err := s.h.SetModel(prov, id)
	if err != nil {
		s.respond(c, nil, err)
		return
	}
	if route.Thinking != r.Thinking {
		// The level carries over a model switch (clamped when sent), as
		// the established harness keeps it.
		route.Thinking = r.Thinking
		rt.SetRoute(route)
	}
	s.respond(c, map[string]any{"model": modelObject(route), "thinkingLevel": route.ThinkingLevel(), "isScoped": scoped}, nil)
}

// thinkingChanged emits thinking_level_changed when a command changed the
// level, as the established harness does.
func (s *Server) thinkingChanged(before, after string) {
	if before != after {
		s.out.emit(map[string]any{"type": "thinking_level_changed", "level": after})
	}
}
