package prompt

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The cases under testdata/conformance were recorded from the established
// harness. We match behaviour and error kinds, not wording.

func readCases(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "conformance", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// orderedVars decodes a JSON object into variables in key order.
func orderedVars(t *testing.T, raw json.RawMessage) []Variable {
	t.Helper()
	var p Patches
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	out := make([]Variable, len(p))
	for i, e := range p {
		out[i] = Variable{Name: e.Name, Value: e.Text}
	}
	return out
}

const peerContextHeader = "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."

func TestRenderConformance(t *testing.T) {
	var file struct {
		Cases []struct {
			ID    string
			API   string
			Input struct {
				Sections []struct {
					Name        string
					Text        string
					Interpolate *bool
				}
				Contexts []struct {
					Name string
					Text string
				}
				Variables json.RawMessage
			}
			Expect struct {
				OK     bool
				Output string
				Error  string
			}
		}
	}
	readCases(t, "render.json", &file)
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range file.Cases {
		t.Run(c.ID, func(t *testing.T) {
			a := &Assembly{Variables: orderedVars(t, c.Input.Variables)}
			for _, s := range c.Input.Sections {
				interp := s.Interpolate == nil || *s.Interpolate
				a.Sections = append(a.Sections, Section{Name: s.Name, Text: s.Text, Interpolate: interp})
			}
			for _, x := range c.Input.Contexts {
				a.Contexts = append(a.Contexts, Context{Name: x.Name, Text: x.Text})
			}
			var got string
			var err error
			switch c.API {
			case "renderPrompt":
				var r Rendered
				r, err = Render(a)
				got = r.Text
			case "renderContextSnapshot":
				got, err = RenderContexts(a)
				c.Expect.Output = strings.Replace(c.Expect.Output, peerContextHeader, contextSnapshotHeader, 1)
			default:
				t.Fatalf("unknown api %q", c.API)
			}
			if c.Expect.OK {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if got != c.Expect.Output {
					t.Fatalf("got %q, want %q", got, c.Expect.Output)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error like %q, got output %q", c.Expect.Error, got)
			}
			checkInterpolationError(t, err, c.Expect.Error)
		})
	}
}

// checkInterpolationError compares the kind, the place and the quoted
// reference of err with the peer's message.
func checkInterpolationError(t *testing.T, err error, peer string) {
	t.Helper()
	var ie *interpolationError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v is not an InterpolationError", err)
	}
	var want error
	switch {
	case strings.HasPrefix(peer, "unknown prompt variable"):
		want = ErrUnknownVariable
		reg := peer[strings.Index(peer, "registered variables: ")+len("registered variables: "):]
		var names []string
		if reg != "(none)" {
			names = strings.Split(reg, ", ")
		}
		if strings.Join(ie.Known, ",") != strings.Join(names, ",") {
			t.Errorf("known variables %v, peer lists %v", ie.Known, names)
		}
	case strings.Contains(peer, "has no value"):
		want = ErrNoValue
	case strings.HasPrefix(peer, "malformed prompt variable reference at "):
		want = ErrMalformedGroup
	case strings.HasPrefix(peer, "malformed prompt variable reference "):
		want = ErrMalformedName
	default:
		t.Fatalf("unclassified peer error %q", peer)
	}
	if !errors.Is(err, want) {
		t.Fatalf("kind %v, want %v (%v)", ie.Kind, want, err)
	}
	// The peer quotes the reference (or excerpt) first, the place second.
	quoted := strings.SplitN(peer, `"`, 3)[1]
	if ie.Ref != quoted {
		t.Errorf("reference %q, peer quotes %q", ie.Ref, quoted)
	}
	var where string
	if i := strings.Index(peer, `section "`); i >= 0 {
		where = peer[i:]
	} else if i := strings.Index(peer, `context "`); i >= 0 {
		where = peer[i:]
	}
	where = where[:strings.Index(where[len(`section "`):], `"`)+len(`section "`)+1]
	if ie.Where != where {
		t.Errorf("place %q, peer says %q", ie.Where, where)
	}
}

func TestSectionDiffConformance(t *testing.T) {
	var file struct {
		Cases []struct {
			Name     string
			Inputs   []Patches
			Expected json.RawMessage
		}
	}
	readCases(t, "section-diff.json", &file)
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			got := DiffSections(c.Inputs[0], c.Inputs[1])
			if string(c.Expected) == `"__undefined__"` {
				if got != nil {
					t.Fatalf("got %v, want no patch", got)
				}
				return
			}
			var want Patches
			mustJSON(t, c.Expected, &want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v, want %s", got, c.Expected)
			}
		})
	}
}

func TestSystemMessagesConformance(t *testing.T) {
	var file struct {
		Cases []struct {
			Name     string
			Function string
			Inputs   []json.RawMessage
			Expected json.RawMessage
		}
	}
	readCases(t, "system-messages.json", &file)
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			switch c.Function {
			case "getSystemMessageText":
				var m Message
				mustJSON(t, c.Inputs[0], &m)
				var want string
				mustJSON(t, c.Expected, &want)
				if got := SystemText(m); got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
			case "getCurrentSystemMessage":
				var msgs []Message
				mustJSON(t, c.Inputs[0], &msgs)
				got, ok := Replay(msgs)
				if string(c.Expected) == `"__undefined__"` {
					if ok {
						t.Fatalf("got %+v, want none", got)
					}
					return
				}
				assertMessageJSON(t, got, c.Expected)
			case "collapseSystemMessages":
				var in struct{ Messages []Message }
				mustJSON(t, c.Inputs[0], &in)
				got := struct {
					Messages []Message `json:"messages"`
				}{collapse(in.Messages)}
				assertMessageJSON(t, got, c.Expected)
			case "getSystemMessageText(getCurrentSystemMessage)":
				var msgs []Message
				mustJSON(t, c.Inputs[0], &msgs)
				head, _ := Replay(msgs)
				var want string
				mustJSON(t, c.Expected, &want)
				if got := SystemText(head); got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
			default:
				t.Fatalf("unknown function %q", c.Function)
			}
		})
	}
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// assertMessageJSON compares got with want as JSON with key order ignored
// for plain objects but section order kept (Patches marshals in order, and
// the comparison below re-encodes want through the same types).
func assertMessageJSON(t *testing.T, got any, want []byte) {
	t.Helper()
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	mustJSON(t, gotJSON, &g)
	mustJSON(t, want, &w)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("got  %s\nwant %s", gotJSON, want)
	}
	// Section order is part of the contract: check it separately.
	if !bytes.Equal(sectionKeys(t, gotJSON), sectionKeys(t, want)) {
		t.Fatalf("section order differs:\ngot  %s\nwant %s", gotJSON, want)
	}
}

func sectionKeys(t *testing.T, doc []byte) []byte {
	var out bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if s, ok := tok.(string); ok && s == "sections" {
			var p Patches
			if dec.Decode(&p) == nil {
				for _, e := range p {
					out.WriteString(e.Name + ",")
				}
				out.WriteString(";")
			}
		}
	}
	return out.Bytes()
}

func TestProjectionDecisionTable(t *testing.T) {
	var file struct {
		DecisionTable []struct {
			ID    string
			Input struct {
				SystemNodes  []Node
				Rendered     string
				InHistory    bool
				StartsSeries bool
			}
			Expect []Commit
		}
	}
	readCases(t, "projection.json", &file)
	if len(file.DecisionTable) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range file.DecisionTable {
		t.Run(c.ID, func(t *testing.T) {
			got := Decide(c.Input.SystemNodes, c.Input.Rendered, c.Input.InHistory, c.Input.StartsSeries)
			if len(got) == 0 && len(c.Expect) == 0 {
				return
			}
			if !reflect.DeepEqual(got, c.Expect) {
				t.Fatalf("got %+v, want %+v", got, c.Expect)
			}
		})
	}
}

// surface is a minimal event log with a visible surface, enough to replay
// the projection scenarios: replace puts a new event in the old one's place.
type surface struct {
	log   []Node // by seq; Text nil = multi-block; role kept separately
	roles []string
	view  []int // seqs in surface order
}

func (s *surface) add(role string, text *string) int {
	seq := len(s.log)
	s.log = append(s.log, Node{Seq: seq, Text: text})
	s.roles = append(s.roles, role)
	return seq
}

func (s *surface) systemNodes() []Node {
	var out []Node
	for _, seq := range s.view {
		if s.roles[seq] == "system" {
			out = append(out, s.log[seq])
		}
	}
	return out
}

func (s *surface) replace(target int, role string, text *string) int {
	seq := s.add(role, text)
	for i, v := range s.view {
		if v == target {
			s.view[i] = seq
		}
	}
	return seq
}

func TestProjectionScenarios(t *testing.T) {
	var file struct {
		Scenarios []struct {
			ID    string
			Steps []struct {
				Do            string
				Text          *string
				Rendered      string
				InHistory     bool
				StartsSeries  bool
				Target        int
				Seq           int
				ExpectCommits []Commit
				CommittedSeqs []int
				SurfaceAfter  []int
				DerivedAfter  []struct {
					Role    string
					Content Content
				}
				Content json.RawMessage
			}
		}
	}
	readCases(t, "projection.json", &file)
	if len(file.Scenarios) == 0 {
		t.Fatal("no scenarios")
	}
	for _, sc := range file.Scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			s := &surface{}
			for i, st := range sc.Steps {
				switch st.Do {
				case "appendUser":
					s.view = append(s.view, s.add("user", st.Text))
				case "appendSystemRaw":
					s.view = append(s.view, s.add("system", nil))
				case "replaceWithUser":
					s.replace(st.Target, "user", Str(""))
				case "project":
					got := Decide(s.systemNodes(), st.Rendered, st.InHistory, st.StartsSeries)
					if !(len(got) == 0 && len(st.ExpectCommits) == 0) && !reflect.DeepEqual(got, st.ExpectCommits) {
						t.Fatalf("step %d: got %+v, want %+v", i, got, st.ExpectCommits)
					}
					var seqs []int
					for _, c := range got {
						if c.Op == OpAppend {
							seq := s.add("system", Str(c.Text))
							s.view = append(s.view, seq)
							seqs = append(seqs, seq)
						} else {
							seqs = append(seqs, s.replace(c.Seq, "system", Str(c.Text)))
						}
					}
					if st.CommittedSeqs != nil && !reflect.DeepEqual(seqs, st.CommittedSeqs) {
						t.Fatalf("step %d: committed seqs %v, want %v", i, seqs, st.CommittedSeqs)
					}
					if st.SurfaceAfter != nil && !reflect.DeepEqual(s.view, st.SurfaceAfter) {
						t.Fatalf("step %d: surface %v, want %v", i, s.view, st.SurfaceAfter)
					}
					if st.DerivedAfter != nil {
						// Derived history omits system nodes whose text is empty.
						var derived []string
						for _, seq := range s.view {
							n := s.log[seq]
							if s.roles[seq] == "system" && n.Text != nil && *n.Text == "" {
								continue
							}
							derived = append(derived, s.roles[seq]+":"+deref(n.Text))
						}
						var want []string
						for _, d := range st.DerivedAfter {
							want = append(want, d.Role+":"+d.Content.Text())
						}
						if !reflect.DeepEqual(derived, want) {
							t.Fatalf("step %d: derived %q, want %q", i, derived, want)
						}
					}
				default:
					t.Fatalf("unknown step %q", st.Do)
				}
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
