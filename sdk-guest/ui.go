package sdk

import "github.com/piwasm/pi/abi"

// Asking the person. pi shows the question as a dialog in the interactive
// UI and as an extension_ui_request to an RPC client; in print and JSON
// mode, and when the person does not answer within the question's
// deadline (a minute at most), the default answer is taken at once: no
// choice, no text, not confirmed. One call of a handler may ask at most
// abi.MaxUIQuestions questions (notifications included); later ones get
// the default answer. Extensions that ask are never memoised.

// Select asks the person to choose one of options and returns the chosen
// option, or ok false when there is no answer.
func Select(title string, options ...string) (choice string, ok bool) {
	return SelectWith(abi.UIRequest{Title: title, Options: options})
}

// SelectWith is Select with every field of the request (a timeout of its
// own, for one).
func SelectWith(r abi.UIRequest) (string, bool) {
	v, code := uiAsk(abi.HostUISelect, r)
	return v, code >= 0
}

// Confirm asks a yes/no question and reports whether the person said yes.
func Confirm(title, message string) bool {
	return ConfirmWith(abi.UIRequest{Title: title, Message: message})
}

// ConfirmWith is Confirm with every field of the request.
func ConfirmWith(r abi.UIRequest) bool {
	_, code := uiAsk(abi.HostUIConfirm, r)
	return code == 1
}

// AskInput asks for a line of text and returns it, or ok false when there
// is no answer. (Input reads the user's prompt from an event.)
func AskInput(title, placeholder string) (text string, ok bool) {
	return AskInputWith(abi.UIRequest{Title: title, Placeholder: placeholder})
}

// AskInputWith is AskInput with every field of the request.
func AskInputWith(r abi.UIRequest) (string, bool) {
	v, code := uiAsk(abi.HostUIInput, r)
	return v, code >= 0
}

// Editor asks for several lines of text in an editor opened with prefill
// and returns the text as the person left it, or ok false when there is
// no answer (the established harness's ctx.ui.editor).
func Editor(title, prefill string) (text string, ok bool) {
	return EditorWith(abi.UIRequest{Title: title, Prefill: prefill})
}

// EditorWith is Editor with every field of the request.
func EditorWith(r abi.UIRequest) (string, bool) {
	v, code := uiAsk(abi.HostUIEditor, r)
	return v, code >= 0
}

// SetStatus sets this extension's status entry key to text in the status
// line, or removes it when text is "" (the established harness's
// ctx.ui.setStatus); key "" is the extension's main entry. It does not
// wait, and counts as a question towards the cap of a call. In print and
// JSON mode nothing is shown.
func SetStatus(key, text string) {
	uiAsk(abi.HostUIStatus, abi.UIRequest{Key: key, Text: text})
}

// SetTitle sets the terminal window's title ("" gives pi's own back; the
// established harness's ctx.ui.setTitle). It does not wait; in print and
// JSON mode nothing changes.
func SetTitle(title string) {
	uiAsk(abi.HostUITitle, abi.UIRequest{Title: title})
}

// SetEditorText puts text in the person's input editor, replacing what is
// there, for the person to edit and send (the established harness's
// ctx.ui.setEditorText). It does not wait; in print and JSON mode nothing
// happens.
func SetEditorText(text string) {
	uiAsk(abi.HostUIEditorText, abi.UIRequest{Text: text})
}

// SetWidget sets this extension's widget key to lines of text drawn above
// the input editor (placement abi.WidgetAbove or "") or below it
// (abi.WidgetBelow), or removes it when there are no lines (the
// established harness's ctx.ui.setWidget with a list of lines). The
// terminal UI draws at most ten lines of a widget. It does not wait; in
// print and JSON mode nothing is shown.
func SetWidget(key string, lines []string, placement string) {
	uiAsk(abi.HostUIWidget, abi.UIRequest{Key: key, Lines: lines, Placement: placement})
}

// Notify shows text to the person without waiting; level is "info",
// "warning" or "error" ("" is "info"). In print mode it goes to stderr.
func Notify(level, text string) {
	uiAsk(abi.HostUINotify, abi.UIRequest{Message: text, Level: level})
}

// uiAsk calls the host function name with r and returns the answer's value
// and the host's result code (negative: no answer).
func uiAsk(name string, r abi.UIRequest) (string, int64) {
	req, err := r.AppendJSON(nil)
	if err != nil {
		return "", abi.ErrInvalid
	}
	return uiCall(name, req)
}
