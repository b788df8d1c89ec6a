package provider

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r io.Reader) ([]sseEvent, error) {
	t.Helper()
	s := newSSEReader(r)
	var evs []sseEvent
	for {
		ev, err := s.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
		if len(evs) > 10000 {
			t.Fatal("runaway reader")
		}
	}
}

func TestSSE(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"simple", "data: a\n\ndata: b\n\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"event and id", "event: ping\nid: 7\ndata: {}\n\ndata: x\n\n", []sseEvent{{Type: "ping", ID: "7", Data: "{}"}, {ID: "7", Data: "x"}}},
		{"multi-line data", "data: one\ndata: two\ndata:\ndata:  three\n\n", []sseEvent{{Data: "one\ntwo\n\n three"}}},
		{"comments and unknown fields", ": keep-alive\nretry: 10\nfoo: bar\ndata: x\n: inside\n\n", []sseEvent{{Data: "x"}}},
		{"CRLF", "data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n", []sseEvent{{Data: "a\nb"}, {Data: "c"}}},
		{"lone CR", "data: a\rdata: b\r\rdata: c\r\r", []sseEvent{{Data: "a\nb"}, {Data: "c"}}},
		{"BOM", "\xef\xbb\xbfdata: a\n\n", []sseEvent{{Data: "a"}}},
		{"no space after colon", "data:a\n\n", []sseEvent{{Data: "a"}}},
		{"field without colon", "data\n\n", []sseEvent{{Data: ""}}},
		{"event without data is dropped", "event: x\n\ndata: y\n\n", []sseEvent{{Data: "y"}}},
		{"final event without blank line", "data: a\n\ndata: b\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"partial final line dropped", "data: a\n\ndata: {\"cho", []sseEvent{{Data: "a"}}},
		{"DONE is data", "data: [DONE]\n\n", []sseEvent{{Data: "[DONE]"}}},
		{"colon in value", "data: {\"a\":\"b: c\"}\n\n", []sseEvent{{Data: `{"a":"b: c"}`}}},
		{"empty", "", nil},
		{"blank lines only", "\n\n\r\n", nil},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data err": iotest.DataErrReader,
	}
	for _, c := range cases {
		for rn, wrap := range readers {
			t.Run(c.name+"/"+rn, func(t *testing.T) {
				got, err := readAll(t, wrap(strings.NewReader(c.in)))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("got %#v, want %#v", got, c.want)
				}
			})
		}
	}
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(t, r)
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if len(got) != 1 || got[0].Data != "a" {
		t.Fatalf("events before the error: %#v", got)
	}
	s := newSSEReader(iotest.ErrReader(boom))
	for range 2 {
		if _, err := s.Next(); !errors.Is(err, boom) {
			t.Fatalf("error is not sticky: %v", err)
		}
	}
}

func TestSSELineTooLong(t *testing.T) {
	r := io.MultiReader(strings.NewReader("data: "), io.LimitReader(zeros{}, maxSSELine+10))
	if _, err := readAll(t, r); !errors.Is(err, errSSELineTooLong) {
		t.Fatalf("error %v, want ErrSSELineTooLong", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// stalled returns no data and no error, forever.
type stalled struct{}

func (stalled) Read([]byte) (int, error) { return 0, nil }

func TestSSENoProgress(t *testing.T) {
	if _, err := newSSEReader(stalled{}).Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("error %v, want io.ErrNoProgress", err)
	}
}
