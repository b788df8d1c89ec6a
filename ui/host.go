package ui

import (
	"context"
	"errors"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/theme"
	"github.com/piwasm/pi/ui/termcaps"
)

// Host is what the session needs from the program that starts it: the
// runtime, and the operations that reach beyond it (loading resources,
// finding session files, models). Nil functions make their commands say
// they are not available.
type Host struct {
	Runtime *runtime.Runtime
	// Cwd is the project directory (shown in the footer, the root of @
	// completion).
	Cwd string
	// Home shortens paths to ~ in the footer.
	Home string
	// Notices are shown first (diagnostics from loading resources).
	Notices string
	// Initial are sent first, one after another.
	Initial []session.Input
	// FullScreen draws in the alternate screen instead of the scrollback.
	FullScreen bool
	// Color false draws without colours (tests, NO_COLOR).
	Color bool
	// Themes are the themes this run can use (the built-in ones when
	// nil), read again after /reload; ThemeSetting is the theme asked
	// for (--use-theme, else the theme setting; "" is system).
	// Appearance is the terminal's ("dark" or "light", from COLORFGBG)
	// until the terminal reports its background; "" means dark.
	Themes       func() *theme.Set
	ThemeSetting func() string
	Appearance   string
	// Display is the layout (nil: DefaultDisplay).
	Display *Display
	// Terminal is what the terminal can do and the terminal.* settings.
	Terminal termcaps.Terminal
	// Startup is the start-up header and listing (nil: none).
	Startup *Startup
	// ResumeCommand is the command that resumes the session ("" when it
	// is not saved), printed when full-screen mode ends.
	ResumeCommand func() string

	// Reload re-reads context files, SYSTEM/APPEND files, skills,
	// templates, settings and extensions and says what changed.
	Reload func() (changes []string, err error)
	// Sessions lists this directory's sessions (every directory's when
	// all), latest activity first, for /resume's picker; SessionText is a
	// session's message text, which its search reads once a query needs
	// it. RenameSession names a session file (a session_info entry);
	// DeleteSession removes one (trashed: moved to the trash instead).
	// Sessions may return a list and an error both: the error is shown
	// above the list.
	Sessions      func(all bool) ([]SessionInfo, error)
	SessionText   func(path string) string
	RenameSession func(path, name string) error
	DeleteSession func(path string) (trashed bool, err error)
	// NewSession starts a new session file and switches to it.
	NewSession func() error
	// OpenSession switches to a session file.
	OpenSession func(path string) error
	// Models lists the configured models (provider/id).
	Models func() ([]string, error)
	// SetModel switches to a model given as provider/id or id.
	SetModel func(spec string) error
	// ScopedModels are the models ctrl+p cycles through (--models,
	// enabledModels); empty means every configured model.
	ScopedModels func() ([]string, error)
	// Clipboard puts text on the system clipboard; /copy sends it through
	// the terminal (OSC 52) when it fails or Terminal.ClipboardOSC52.
	Clipboard func(text string) error
	// ExternalEditor is the externalEditor setting (ctrl+g); $VISUAL and
	// $EDITOR come after it.
	ExternalEditor string
	// HideThinking starts with thinking blocks folded (hideThinkingBlock;
	// ctrl+t toggles).
	HideThinking bool
	// CacheNotices shows prompt-cache misses, refreshes and what a
	// compaction was billed (showCacheMissNotices).
	CacheNotices bool
	// CacheWarming, when set, is the cache warming section of /session.
	CacheWarming func() string
	// ImportSession copies a session file next to this directory's
	// sessions, checks it and switches to it; it returns the copy's path.
	ImportSession func(path string) (string, error)
	// MCP answers /mcp (the servers' state, tools and errors) and
	// /mcp reconnect NAME with text to show; nil when no server is
	// configured.
	MCP func(args string) (string, error)
	// TrustStatus and SetTrust back /trust (trust.json).
	TrustStatus func() (TrustStatus, error)
	SetTrust    func(TrustChoice) error
	// Changelog is pi's changelog (Markdown) for /changelog; WhatsNew,
	// when set, is shown once at start (the entries since the last
	// version this agent dir saw).
	Changelog, WhatsNew string
	// Share uploads an HTML page and returns its address (/share);
	// ShareRefusal, when set, says why sharing is not possible here.
	Share        func(html []byte) (string, error)
	ShareRefusal string
	// Settings lists the settings /settings can change; SetSetting writes
	// one (JSON value) and returns the file it went to.
	Settings   func() ([]Setting, error)
	SetSetting func(name, value string) (string, error)
	// Summarizer writes the summary of a branch /tree leaves (nil: no
	// summaries offered); SkipSummaryPrompt (branchSummary.skipPrompt)
	// goes without asking and without a summary.
	Summarizer        runtime.Summarizer
	SkipSummaryPrompt bool
	// DoubleEscape is what esc twice on an empty editor opens:
	// "tree" (the default), "fork" or "none" (doubleEscapeAction).
	DoubleEscape string
	// TreeFilter is the filter /tree opens with (treeFilterMode).
	TreeFilter string
	// SaveAPIKey stores a provider's key in auth.json and returns the
	// file; LoginProviders are the providers /login offers.
	SaveAPIKey     func(provider, key string) (string, error)
	LoginProviders func() []string
	// StoredCredentials lists auth.json's providers; Logout forgets one.
	StoredCredentials func() ([]string, error)
	Logout            func(provider string) (bool, error)
	// Keys are the key bindings (keybindings.json over the defaults; read
	// again after /reload); nil: the defaults.
	Keys func() *keybind.Bindings
	// PasteClipboard reads the system clipboard for
	// app.clipboard.pasteImage: an image (saved to a file, attached to the
	// next message) or else text.
	PasteClipboard func() (Pasted, error)
	// Shortcuts are the keys extensions bind (read again after /reload).
	Shortcuts func() []Shortcut
	// Sections are the system prompt's sections with their sources.
	Sections func() ([]Section, error)
	// Trust, when set, is asked first: the project has local resources
	// and no trust decision. The answer is saved and resources reloaded;
	// the returned lines say what now loads.
	Trust    func(yes bool) ([]string, error)
	TrustDir string
}

// Pasted is what the clipboard held: an image, saved at Path, or Text.
type Pasted struct {
	Image *prompt.Block
	Path  string
	Text  string
}

// SessionInfo is one session file for the /resume picker.
type SessionInfo struct {
	Path, ID, Cwd, Name string
	// Parent is the session this one was forked from (its file).
	Parent string
	// Modified is the time of the latest message.
	Modified time.Time
	// First is the first user message (what the session was about).
	First    string
	Messages int
}

// Section is one system prompt section for /prompt.
type Section struct {
	Name, Source string
	Bytes        int
}

// Questions answers permission "ask" rules in the session: the gate calls
// Ask from the run's goroutine; the question becomes a dialog. Create it
// before the runtime (the gate needs it) and give it to Run.
type Questions struct {
	mu   sync.Mutex
	send func(tea.Msg)
	// pending are notices posted before the session was on screen
	// (session_start's warnings at start-up): shown first when it is.
	pending []string
	done    bool // the session has left the screen
}

// Notice shows text as a notice in the session's transcript: warnings
// from extension hooks and their log lines, which written to stderr would
// tear the drawn screen. Before the session is on screen the notice waits
// for it; after, it is dropped (nobody would see it). Notice never blocks:
// hooks call it from wherever they run, the UI's own commands included.
func (q *Questions) Notice(text string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.done {
		return
	}
	q.pending = append(q.pending, text)
	if q.send != nil && len(q.pending) == 1 {
		go q.pump(q.send)
	}
}

// pump hands the pending notices to the program in order, then stops; the
// next Notice starts another.
func (q *Questions) pump(send func(tea.Msg)) {
	for {
		q.mu.Lock()
		if len(q.pending) == 0 || q.send == nil {
			q.mu.Unlock()
			return
		}
		text := q.pending[0]
		q.mu.Unlock()
		send(noticeMsg(text))
		q.mu.Lock()
		if len(q.pending) > 0 {
			q.pending = q.pending[1:]
		}
		q.mu.Unlock()
	}
}

// errNoUI is the answer while the session is not on screen.
var errNoUI = errors.New("the interactive session is not running")

type askMsg struct {
	q     permission.Question
	reply chan permission.Answer
}

// Ask shows the question and waits for the person (or ctx).
func (q *Questions) Ask(ctx context.Context, question permission.Question) (permission.Answer, error) {
	q.mu.Lock()
	send := q.send
	q.mu.Unlock()
	if send == nil {
		return permission.Answer{}, errNoUI
	}
	reply := make(chan permission.Answer, 1)
	send(askMsg{q: question, reply: reply})
	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		return permission.Answer{}, ctx.Err()
	}
}

func (q *Questions) attach(send func(tea.Msg)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.send = send
	if send == nil {
		// The session left the screen: later notices have nowhere to go.
		q.done, q.pending = true, nil
		return
	}
	if len(q.pending) > 0 {
		// Send blocks until the program reads its messages, and attach
		// runs before the program starts.
		go q.pump(send)
	}
}
