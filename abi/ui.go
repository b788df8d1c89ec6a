package abi

// Host functions that ask the user something (imported from HostModule).
// The request is JSON (a UIRequest) at reqPtr:
//
//	pi_ui_select(reqPtr, reqLen, dstPtr, dstCap i32) i64
//	pi_ui_input(reqPtr, reqLen, dstPtr, dstCap i32) i64
//	pi_ui_confirm(reqPtr, reqLen i32) i64
//	pi_ui_notify(reqPtr, reqLen i32) i64
//	pi_ui_editor(reqPtr, reqLen, dstPtr, dstCap i32) i64
//	pi_ui_status(reqPtr, reqLen i32) i64
//	pi_ui_title(reqPtr, reqLen i32) i64
//	pi_ui_editor_text(reqPtr, reqLen i32) i64
//	pi_ui_widget(reqPtr, reqLen i32) i64
//
// pi_ui_select and pi_ui_input deliver the chosen option or the typed text
// like pi_fetch (copied when it fits in dstCap, else only its length is
// returned; asking again with the same request and a larger buffer gets the
// same answer without asking the person twice). ErrNotFound means no
// answer: the person cancelled, the question timed out, or pi runs without
// anyone to ask (print and JSON mode). pi_ui_editor is pi_ui_input for
// several lines of text, opened with Prefill (the established harness's
// ctx.ui.editor). pi_ui_confirm returns 1 for yes and 0 for no (the
// default). pi_ui_notify returns 0, and so does pi_ui_status, which sets
// (Text) or clears (no Text) the extension's entry Key in the status line
// (ctx.ui.setStatus); pi_ui_title sets the terminal window's title to
// Title (ctx.ui.setTitle) and pi_ui_editor_text puts Text in the person's
// input editor (ctx.ui.setEditorText), and pi_ui_widget sets (Lines) or
// removes (no Lines) the extension's widget Key, lines of text drawn above
// the input editor or below it (Placement; ctx.ui.setWidget), all
// returning 0; none of these waits for the person. ErrDenied means the call
// has asked its maximum number of questions (MaxUIQuestions); ErrInvalid a
// request that is not a valid UIRequest.
const (
	HostUISelect  = "pi_ui_select"
	HostUIInput   = "pi_ui_input"
	HostUIConfirm = "pi_ui_confirm"
	HostUINotify  = "pi_ui_notify"
	HostUIEditor  = "pi_ui_editor"
	HostUIStatus  = "pi_ui_status"
	HostUITitle   = "pi_ui_title"
	// HostUIEditorText sets the text of the person's input editor.
	HostUIEditorText = "pi_ui_editor_text"
	HostUIWidget     = "pi_ui_widget"
)

// MaxUIQuestions caps the questions (dialogs and notifications) of one
// call of a guest's export, so that a guest cannot flood the person.
const MaxUIQuestions = 8

// UIRequest is the request of a pi_ui_* host function.
type UIRequest struct {
	// Title is the question (or, for notify, the notification's text when
	// Message is empty).
	Title string `json:"title,omitempty"`
	// Message is a longer explanation under the title (confirm, notify).
	Message string `json:"message,omitempty"`
	// Options are the choices of a select (at least one).
	Options []string `json:"options,omitempty"`
	// Placeholder is the hint an input shows while empty.
	Placeholder string `json:"placeholder,omitempty"`
	// Level is a notification's kind: "info" (default), "warning" or
	// "error".
	Level string `json:"level,omitempty"`
	// Prefill is the text an editor opens with.
	Prefill string `json:"prefill,omitempty"`
	// Key names a status entry of the extension ("": its main one);
	// Text is the entry's text ("": the entry is removed).
	Key  string `json:"key,omitempty"`
	Text string `json:"text,omitempty"`
	// Lines are a widget's lines (none: the widget is removed), drawn
	// where Placement says.
	Lines     []string `json:"lines,omitempty"`
	Placement string   `json:"placement,omitempty"`
	// TimeoutMs shortens the time the person has to answer (the host's
	// own limit applies when it is 0 or longer); the default answer is
	// taken when it passes.
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// The same questions in Extism's conventions, for guests built with a
// stock Extism PDK: the request is an Extism memory block, and so is the
// answer of select and input (a non-negative result is its offset).
// Confirm and notify return the same codes as the direct functions.
//
//	pi_ui_select_block(req i64) i64
//	pi_ui_input_block(req i64) i64
//	pi_ui_confirm_block(req i64) i64
//	pi_ui_notify_block(req i64) i64
//	pi_ui_editor_block(req i64) i64
//	pi_ui_status_block(req i64) i64
//	pi_ui_title_block(req i64) i64
//	pi_ui_editor_text_block(req i64) i64
//	pi_ui_widget_block(req i64) i64
const (
	HostUISelectBlock  = "pi_ui_select_block"
	HostUIInputBlock   = "pi_ui_input_block"
	HostUIConfirmBlock = "pi_ui_confirm_block"
	HostUINotifyBlock  = "pi_ui_notify_block"
	HostUIEditorBlock  = "pi_ui_editor_block"
	HostUIStatusBlock  = "pi_ui_status_block"
	HostUITitleBlock   = "pi_ui_title_block"
	// HostUIEditorTextBlock is HostUIEditorText for Extism PDKs.
	HostUIEditorTextBlock = "pi_ui_editor_text_block"
	HostUIWidgetBlock     = "pi_ui_widget_block"
)

// Widget placements (UIRequest.Placement; "" is WidgetAbove).
const (
	WidgetAbove = "aboveEditor"
	WidgetBelow = "belowEditor"
)
