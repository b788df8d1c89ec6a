package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"sync"

	"github.com/piwasm/pi/abi"
)

// Memoizable is implemented by handlers whose results are a pure function
// of their inputs (a WASM guest with no clock, randomness, network or
// environment grant). A file grant does not make a guest impure: the files
// it reads are fetched values, and so part of the key. Identity names the
// code and configuration: two handlers with the same identity give the same
// result for the same event and fetched values.
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
// stored result without running h. Inputs are the event, every value h
// fetched (a stored result is used only when each still has the same
// digest) and the history of calls h answered before (a guest may keep
// state between calls). After a failed call nothing more is served or
// stored. Handlers that are not Memoizable, or not pure, are
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

	// mu serialises calls: the chain below depends on their order.
	mu sync.Mutex
	// chain digests every call this handler answered so far (its key and
	// the digests of what it fetched). A guest instance lives across calls
	// and may keep state from one to the next, so a result is only valid
	// after the same history: the chain is part of every key.
	chain [sha256.Size]byte
	// broken is set after a failed call: the instance may hold state no
	// chain describes (or was replaced), so nothing more is served or
	// stored for the rest of this handler's life.
	broken bool
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
	sum.Write(h.chain[:])
	sum.Write([]byte(hook))
	sum.Write([]byte{0})
	sum.Write(b)
	return hex.EncodeToString(sum.Sum(nil)), true
}

// advance folds one answered call into the chain.
func (h *memoHandler) advance(key string, fetched map[string]string) {
	sum := sha256.New()
	sum.Write(h.chain[:])
	sum.Write([]byte(key))
	keys := make([]string, 0, len(fetched))
	for k := range fetched {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sum.Write([]byte{0})
		sum.Write([]byte(k))
		sum.Write([]byte{0})
		sum.Write([]byte(fetched[k]))
	}
	copy(h.chain[:], sum.Sum(nil))
}

// lookup returns the stored result for key when every fetched value still
// matches, and the digests it checked.
func (h *memoHandler) lookup(key string, fetch Fetcher, res any) (map[string]string, bool) {
	raw, ok := h.store.Get(key)
	if !ok {
		return nil, false
	}
	var e memoEntry
	if json.Unmarshal(raw, &e) != nil {
		return nil, false
	}
	for k, want := range e.Fetched {
		got := notFound
		if fetch != nil {
			if v, ok := fetch(k); ok {
				got = digest(v)
			}
		}
		if got != want {
			return nil, false
		}
	}
	if json.Unmarshal(e.Result, res) != nil {
		return nil, false
	}
	return e.Fetched, true
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

// memoCall answers one hook call from the store when its key (identity,
// chain, hook, event) has an entry whose fetched values still match, and
// otherwise runs it, recording what it fetched. storable says whether a
// result may be written to the store.
func memoCall[R any](h *memoHandler, hook string, ev any, fetch Fetcher, run func(Fetcher) (R, error), storable func(R) bool) (R, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var res R
	key, ok := h.key(hook, ev)
	ok = ok && !h.broken
	if ok {
		if fetched, hit := h.lookup(key, fetch, &res); hit {
			h.advance(key, fetched)
			return res, nil
		}
	}
	rec := &recorder{fetch: fetch}
	res, err := run(rec.get)
	if err != nil {
		h.broken = true
		return res, err
	}
	if ok {
		if storable(res) {
			h.save(key, rec.seen, res)
		}
		h.advance(key, rec.seen)
	}
	return res, nil
}

func always[R any](R) bool { return true }

func (h *memoHandler) BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch Fetcher) (abi.BeforeAgentStartResult, error) {
	// A forced prompt must never be written anywhere (stores may be on
	// disk), so results that force one are recomputed every time.
	return memoCall(h, abi.HookBeforeAgentStart, ev, fetch, func(f Fetcher) (abi.BeforeAgentStartResult, error) {
		return h.Handler.BeforeAgentStart(ctx, ev, f)
	}, func(r abi.BeforeAgentStartResult) bool { return r.ForcePrompt == nil })
}

func (h *memoHandler) Assemble(ctx context.Context, ev abi.AssembleEvent, fetch Fetcher) (abi.AssembleResult, error) {
	return memoCall(h, abi.HookAssemble, ev, fetch, func(f Fetcher) (abi.AssembleResult, error) {
		return h.Handler.Assemble(ctx, ev, f)
	}, always[abi.AssembleResult])
}

func (h *memoHandler) Input(ctx context.Context, ev abi.InputEvent, fetch Fetcher) (abi.InputResult, error) {
	return memoCall(h, abi.HookInput, ev, fetch, func(f Fetcher) (abi.InputResult, error) {
		return h.Handler.Input(ctx, ev, f)
	}, always[abi.InputResult])
}

func (h *memoHandler) Command(ctx context.Context, ev abi.CommandEvent, fetch Fetcher) (abi.CommandResult, error) {
	return memoCall(h, abi.HookCommand, ev, fetch, func(f Fetcher) (abi.CommandResult, error) {
		return h.Handler.Command(ctx, ev, f)
	}, always[abi.CommandResult])
}
