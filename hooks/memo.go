package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/piwasm/pi/abi"
)

// Memoizable is implemented by handlers whose results are a pure function
// of their inputs (a WASM guest with no clock, randomness, network,
// environment or file grant). Identity names the code and configuration:
// two handlers with the same identity give the same result for the same
// event and fetched values.
type Memoizable interface {
	MemoIdentity() (identity string, pure bool)
}

// MemoStore keeps memoized results. Implementations must be safe for
// concurrent use; a failed Put only costs a future recomputation.
type MemoStore interface {
	Get(key string) ([]byte, bool)
	Put(key string, value []byte)
}

// MemoryStore is an in-memory MemoStore.
type MemoryStore struct{ m sync.Map }

// Get returns the value stored under key.
func (s *MemoryStore) Get(key string) ([]byte, bool) {
	v, ok := s.m.Load(key)
	if !ok {
		return nil, false
	}
	return v.([]byte), true
}

// Put stores value under key.
func (s *MemoryStore) Put(key string, value []byte) { s.m.Store(key, value) }

// Memoize wraps h so that calls whose inputs were seen before return the
// stored result without running h. Inputs are the event and every value h
// fetched: a stored result is used only when each value it fetched still
// has the same digest. Handlers that are not Memoizable, or not pure, are
// returned unchanged. Guest log lines are not replayed on a hit, and a
// before_agent_start result that forces a prompt is never stored.
func Memoize(h Handler, store MemoStore) Handler {
	m, ok := h.(Memoizable)
	if !ok || store == nil {
		return h
	}
	id, pure := m.MemoIdentity()
	if !pure || id == "" {
		return h
	}
	return &memoHandler{Handler: h, id: id, store: store}
}

type memoHandler struct {
	Handler
	id    string
	store MemoStore
}

// memoEntry is what the store holds for one call: the digests of the values
// the handler fetched, and its result.
type memoEntry struct {
	Fetched map[string]string `json:"fetched,omitempty"`
	Result  json.RawMessage   `json:"result"`
}

const notFound = "-"

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (h *memoHandler) key(hook string, ev any) (string, bool) {
	b, err := json.Marshal(ev)
	if err != nil {
		return "", false
	}
	sum := sha256.New()
	sum.Write([]byte(h.id))
	sum.Write([]byte{0})
	sum.Write([]byte(hook))
	sum.Write([]byte{0})
	sum.Write(b)
	return hex.EncodeToString(sum.Sum(nil)), true
}

// lookup returns the stored result for key when every fetched value still
// matches.
func (h *memoHandler) lookup(key string, fetch Fetcher, res any) bool {
	raw, ok := h.store.Get(key)
	if !ok {
		return false
	}
	var e memoEntry
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	for k, want := range e.Fetched {
		got := notFound
		if fetch != nil {
			if v, ok := fetch(k); ok {
				got = digest(v)
			}
		}
		if got != want {
			return false
		}
	}
	return json.Unmarshal(e.Result, res) == nil
}

// recorder wraps a fetcher and remembers the digest of every value served.
type recorder struct {
	fetch Fetcher
	mu    sync.Mutex
	seen  map[string]string
}

func (r *recorder) get(key string) ([]byte, bool) {
	var v []byte
	ok := false
	if r.fetch != nil {
		v, ok = r.fetch(key)
	}
	d := notFound
	if ok {
		d = digest(v)
	}
	r.mu.Lock()
	if r.seen == nil {
		r.seen = map[string]string{}
	}
	r.seen[key] = d
	r.mu.Unlock()
	return v, ok
}

func (h *memoHandler) save(key string, fetched map[string]string, res any) {
	b, err := json.Marshal(res)
	if err != nil {
		return
	}
	e, err := json.Marshal(memoEntry{Fetched: fetched, Result: b})
	if err == nil {
		h.store.Put(key, e)
	}
}

func (h *memoHandler) BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch Fetcher) (abi.BeforeAgentStartResult, error) {
	var res abi.BeforeAgentStartResult
	key, ok := h.key(abi.HookBeforeAgentStart, ev)
	if ok && h.lookup(key, fetch, &res) {
		return res, nil
	}
	rec := &recorder{fetch: fetch}
	res, err := h.Handler.BeforeAgentStart(ctx, ev, rec.get)
	// A forced prompt must never be written anywhere (stores may be on
	// disk), so results that force one are recomputed every time.
	if err == nil && ok && res.ForcePrompt == nil {
		h.save(key, rec.seen, res)
	}
	return res, err
}

func (h *memoHandler) Assemble(ctx context.Context, ev abi.AssembleEvent, fetch Fetcher) (abi.AssembleResult, error) {
	var res abi.AssembleResult
	key, ok := h.key(abi.HookAssemble, ev)
	if ok && h.lookup(key, fetch, &res) {
		return res, nil
	}
	rec := &recorder{fetch: fetch}
	res, err := h.Handler.Assemble(ctx, ev, rec.get)
	if err == nil && ok {
		h.save(key, rec.seen, res)
	}
	return res, err
}

func (h *memoHandler) Input(ctx context.Context, ev abi.InputEvent) (abi.InputResult, error) {
	var res abi.InputResult
	key, ok := h.key(abi.HookInput, ev)
	if ok && h.lookup(key, nil, &res) {
		return res, nil
	}
	res, err := h.Handler.Input(ctx, ev)
	if err == nil && ok {
		h.save(key, nil, res)
	}
	return res, err
}

func (h *memoHandler) Command(ctx context.Context, ev abi.CommandEvent) (abi.CommandResult, error) {
	var res abi.CommandResult
	key, ok := h.key(abi.HookCommand, ev)
	if ok && h.lookup(key, nil, &res) {
		return res, nil
	}
	res, err := h.Handler.Command(ctx, ev)
	if err == nil && ok {
		h.save(key, nil, res)
	}
	return res, err
}
