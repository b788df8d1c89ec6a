package keybind

// Action is one named thing a key can do.
type Action struct {
	// ID is the established harness's id ("app.message.dequeue").
	ID string
	// Defaults are the keys it has when keybindings.json does not set it.
	Defaults []string
	// Description says what it does, for /hotkeys.
	Description string
	// Applies is false for an action of the established harness pi has no
	// counterpart for; Note then says why, and a file that sets it is told.
	Applies bool
	Note    string
}

// Platform picks the defaults that differ between systems, as the
// established harness picks them.
type Platform struct {
	GOOS string
	// WSL: Linux under the Windows Subsystem for Linux (WSL_DISTRO_NAME or
	// WSL_INTEROP set), whose terminals get the Windows keys.
	WSL bool
}

func (p Platform) windowsKeys() bool { return p.GOOS == "windows" || p.GOOS == "linux" && p.WSL }

// Why pi lacks some of the established harness's actions.
const (
	noEditor   = "pi's editor has no such command"
	noFullView = "pi's full-screen view has no transcript search or prompt marks"
	noSelector = "pi's model picker has no such key"
	noSelect   = "pi's editor has no text selection to copy"
)

// Actions is the table of every action id the established harness knows,
// in its order, with its defaults on p. Applies says which of them pi
// dispatches.
func Actions(p Platform) []Action {
	win := p.windowsKeys()
	pick := func(w bool, yes, no []string) []string {
		if w {
			return yes
		}
		return no
	}
	k := func(keys ...string) []string { return keys }
	undo := k("ctrl+-")
	if p.GOOS == "windows" {
		undo = k("ctrl+z")
	} else if win {
		undo = k("alt+z")
	}
	fold, unfold := k("ctrl+left", "alt+left"), k("ctrl+right", "alt+right")
	if p.GOOS == "darwin" {
		fold, unfold = k("alt+left", "ctrl+left"), k("alt+right", "ctrl+right")
	}
	on := func(id string, keys []string, desc string) Action {
		return Action{ID: id, Defaults: keys, Description: desc, Applies: true}
	}
	off := func(id string, keys []string, desc, note string) Action {
		return Action{ID: id, Defaults: keys, Description: desc, Note: note}
	}
	return []Action{
		on("tui.editor.cursorUp", k("up"), "cursor up; at the top, older sent messages"),
		on("tui.editor.cursorDown", k("down"), "cursor down; at the bottom, newer sent messages"),
		on("tui.editor.historyPrevious", k(), "older sent message, wherever the cursor is"),
		on("tui.editor.historyNext", k(), "newer sent message, wherever the cursor is"),
		on("tui.editor.cursorLeft", k("left", "ctrl+b"), "cursor left"),
		on("tui.editor.cursorRight", k("right", "ctrl+f"), "cursor right"),
		on("tui.editor.cursorWordLeft", k("alt+left", "ctrl+left", "alt+b"), "cursor one word left"),
		on("tui.editor.cursorWordRight", k("alt+right", "ctrl+right", "alt+f"), "cursor one word right"),
		on("tui.editor.cursorLineStart", k("home", "ctrl+a"), "start of the line"),
		on("tui.editor.cursorLineEnd", k("end", "ctrl+e"), "end of the line"),
		off("tui.editor.jumpForward", k("ctrl+]"), "jump forward to a character", noEditor),
		off("tui.editor.jumpBackward", k("ctrl+alt+]"), "jump back to a character", noEditor),
		on("tui.editor.pageUp", k("pageUp", "ctrl+pageUp"), "editor page up"),
		on("tui.editor.pageDown", k("pageDown", "ctrl+pageDown"), "editor page down"),
		on("tui.editor.deleteCharBackward", k("backspace"), "delete the character before the cursor"),
		on("tui.editor.deleteCharForward", k("delete", "ctrl+d"), "delete the character under the cursor"),
		on("tui.editor.deleteWordBackward", k("ctrl+w", "alt+backspace"), "delete the word before the cursor"),
		on("tui.editor.deleteWordForward", k("alt+d", "alt+delete"), "delete the word after the cursor"),
		on("tui.editor.deleteToLineStart", k("ctrl+u"), "delete to the start of the line"),
		on("tui.editor.deleteToLineEnd", k("ctrl+k"), "delete to the end of the line"),
		off("tui.editor.yank", k("ctrl+y"), "paste the last deleted text", noEditor),
		off("tui.editor.yankPop", k("alt+y"), "cycle through deleted text", noEditor),
		off("tui.editor.undo", undo, "undo the last edit", noEditor),
		on("tui.input.newLine", k("shift+enter", "ctrl+j"), "new line"),
		on("tui.input.submit", k("enter"), "send (while pi works: steer)"),
		on("tui.input.tab", k("tab"), "complete a command or path"),
		off("tui.input.copy", k("ctrl+c"), "copy the selection", noSelect),
		on("tui.select.up", k("up"), "move up in a menu or list"),
		on("tui.select.down", k("down"), "move down in a menu or list"),
		on("tui.select.pageUp", k("pageUp"), "page up in a list"),
		on("tui.select.pageDown", k("pageDown"), "page down in a list"),
		on("tui.select.confirm", k("enter"), "choose in a menu or list"),
		on("tui.select.cancel", k("escape", "ctrl+c"), "close a menu or list"),
		on("tui.altScreen.pageUp", k("pageUp"), "scroll the transcript up (full screen)"),
		on("tui.altScreen.pageDown", k("pageDown"), "scroll the transcript down (full screen)"),
		off("tui.altScreen.halfPageUp", k(), "scroll half a page up", noFullView),
		off("tui.altScreen.halfPageDown", k(), "scroll half a page down", noFullView),
		off("tui.altScreen.lineUp", k(), "scroll one line up", noFullView),
		off("tui.altScreen.lineDown", k(), "scroll one line down", noFullView),
		off("tui.altScreen.previousPrompt", pick(win, k("ctrl+up"), k("ctrl+shift+up", "ctrl+up")), "previous prompt", noFullView),
		off("tui.altScreen.nextPrompt", pick(win, k("ctrl+down"), k("ctrl+shift+down", "ctrl+down")), "next prompt", noFullView),
		off("tui.altScreen.search", pick(win, k("ctrl+f"), k("ctrl+shift+f")), "search the transcript", noFullView),
		off("tui.altScreen.searchNext", k("enter", "ctrl+g"), "next match", noFullView),
		off("tui.altScreen.searchPrevious", k("shift+enter", "ctrl+shift+g"), "previous match", noFullView),
		off("tui.altScreen.searchClose", k("escape"), "close the search", noFullView),
		off("tui.altScreen.top", k("ctrl+home"), "scroll to the top", noFullView),
		off("tui.altScreen.bottom", k("ctrl+end"), "scroll to the bottom", noFullView),

		on("app.interrupt", k("escape"), "abort the run; close a menu"),
		on("app.clear", k("ctrl+c"), "clear the editor; twice: quit"),
		on("app.exit", k("ctrl+d"), "quit (empty editor)"),
		on("app.suspend", pick(p.GOOS == "windows", k(), k("ctrl+z")), "suspend pi (fg brings it back)"),
		on("app.thinking.cycle", k("shift+tab"), "next thinking level"),
		off("app.thinking.save", k("ctrl+s"), "save the thinking level", "pi's thinking dialog saves with /settings"),
		on("app.model.cycleForward", k("ctrl+p"), "next model (scoped models)"),
		on("app.model.cycleBackward", pick(win, k("alt+p"), k("shift+ctrl+p")), "previous model"),
		on("app.model.select", k("ctrl+l"), "pick a model"),
		on("app.tools.expand", k("ctrl+o"), "expand or fold tool output"),
		on("app.thinking.toggle", k("ctrl+t"), "show or hide thinking blocks"),
		on("app.session.toggleNamedFilter", k("ctrl+n"), "sessions: named ones only"),
		on("app.editor.external", k("ctrl+g"), "edit the message in your editor ($VISUAL, $EDITOR)"),
		off("app.message.copy", k("ctrl+x"), "copy the last reply", "pi copies with /copy and leaves ctrl+x to extensions (docs/extensions.md suggests it)"),
		on("app.message.followUp", pick(win, k("ctrl+q"), k("alt+enter")), "queue a follow-up for when pi is done"),
		on("app.message.dequeue", pick(win, k("alt+q"), k("alt+up")), "put the queued messages back in the editor"),
		on("app.clipboard.pasteImage", pick(win, k("alt+v", "ctrl+v"), k("ctrl+v")), "paste an image (or text) from the clipboard"),
		on("app.session.new", k(), "new session (/new)"),
		on("app.session.tree", k(), "session tree (/tree)"),
		on("app.session.fork", k(), "fork the session (/fork)"),
		on("app.session.resume", k(), "resume a session (/resume)"),
		on("app.tree.foldOrUp", fold, "tree: fold the branch"),
		on("app.tree.unfoldOrDown", unfold, "tree: unfold the branch"),
		on("app.tree.editLabel", k("shift+l"), "tree: label the entry"),
		on("app.tree.toggleLabelTimestamp", k("shift+t"), "tree: show label times"),
		on("app.session.togglePath", k("ctrl+p"), "sessions: show paths"),
		on("app.session.toggleSort", k("ctrl+s"), "sessions: change the order"),
		on("app.session.rename", k("ctrl+r"), "sessions: rename"),
		on("app.session.delete", k("ctrl+d"), "sessions: delete"),
		on("app.session.deleteNoninvasive", k("ctrl+backspace"), "sessions: delete (empty search)"),
		off("app.models.save", k("ctrl+s"), "save the model selection", noSelector),
		off("app.models.enableAll", k("ctrl+a"), "enable every model", noSelector),
		off("app.models.clearAll", k("ctrl+x"), "disable every model", noSelector),
		off("app.models.toggleProvider", k("ctrl+p"), "toggle a provider's models", noSelector),
		off("app.models.reorderUp", k("alt+up"), "move a model up", noSelector),
		off("app.models.reorderDown", k("alt+down"), "move a model down", noSelector),
		on("app.tree.filter.default", k("ctrl+d"), "tree: default filter"),
		on("app.tree.filter.noTools", k("ctrl+t"), "tree: hide tool results"),
		on("app.tree.filter.userOnly", k("ctrl+u"), "tree: your messages only"),
		on("app.tree.filter.labeledOnly", k("ctrl+l"), "tree: labelled entries only"),
		on("app.tree.filter.all", k("ctrl+a"), "tree: every entry"),
		on("app.tree.filter.cycleForward", k("ctrl+o"), "tree: next filter"),
		on("app.tree.filter.cycleBackward", k("shift+ctrl+o"), "tree: previous filter"),
	}
}

// legacyNames are the ids of the established harness's earlier versions,
// which it still reads (and rewrites); pi reads them too.
var legacyNames = map[string]string{
	"cursorUp": "tui.editor.cursorUp", "cursorDown": "tui.editor.cursorDown",
	"cursorLeft": "tui.editor.cursorLeft", "cursorRight": "tui.editor.cursorRight",
	"cursorWordLeft": "tui.editor.cursorWordLeft", "cursorWordRight": "tui.editor.cursorWordRight",
	"cursorLineStart": "tui.editor.cursorLineStart", "cursorLineEnd": "tui.editor.cursorLineEnd",
	"jumpForward": "tui.editor.jumpForward", "jumpBackward": "tui.editor.jumpBackward",
	"pageUp": "tui.editor.pageUp", "pageDown": "tui.editor.pageDown",
	"deleteCharBackward": "tui.editor.deleteCharBackward", "deleteCharForward": "tui.editor.deleteCharForward",
	"deleteWordBackward": "tui.editor.deleteWordBackward", "deleteWordForward": "tui.editor.deleteWordForward",
	"deleteToLineStart": "tui.editor.deleteToLineStart", "deleteToLineEnd": "tui.editor.deleteToLineEnd",
	"yank": "tui.editor.yank", "yankPop": "tui.editor.yankPop", "undo": "tui.editor.undo",
	"newLine": "tui.input.newLine", "submit": "tui.input.submit", "tab": "tui.input.tab", "copy": "tui.input.copy",
	"selectUp": "tui.select.up", "selectDown": "tui.select.down",
	"selectPageUp": "tui.select.pageUp", "selectPageDown": "tui.select.pageDown",
	"selectConfirm": "tui.select.confirm", "selectCancel": "tui.select.cancel",
	"interrupt": "app.interrupt", "clear": "app.clear", "exit": "app.exit", "suspend": "app.suspend",
	"cycleThinkingLevel": "app.thinking.cycle", "cycleModelForward": "app.model.cycleForward",
	"cycleModelBackward": "app.model.cycleBackward", "selectModel": "app.model.select",
	"expandTools": "app.tools.expand", "toggleThinking": "app.thinking.toggle",
	"toggleSessionNamedFilter": "app.session.toggleNamedFilter", "externalEditor": "app.editor.external",
	"followUp": "app.message.followUp", "dequeue": "app.message.dequeue", "pasteImage": "app.clipboard.pasteImage",
	"newSession": "app.session.new", "tree": "app.session.tree", "fork": "app.session.fork", "resume": "app.session.resume",
	"treeFoldOrUp": "app.tree.foldOrUp", "treeUnfoldOrDown": "app.tree.unfoldOrDown",
	"treeEditLabel": "app.tree.editLabel", "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
	"toggleSessionPath": "app.session.togglePath", "toggleSessionSort": "app.session.toggleSort",
	"renameSession": "app.session.rename", "deleteSession": "app.session.delete",
	"deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}
