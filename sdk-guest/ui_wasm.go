//go:build wasip1

package sdk

import (
	"errors"
	"runtime"

	"github.com/piwasm/pi/abi"
)

//go:wasmimport extism:host/user pi_ui_select
func piUISelect(reqPtr, reqLen, dstPtr, dstCap uint32) int64

//go:wasmimport extism:host/user pi_ui_input
func piUIInput(reqPtr, reqLen, dstPtr, dstCap uint32) int64

//go:wasmimport extism:host/user pi_ui_confirm
func piUIConfirm(reqPtr, reqLen uint32) int64

//go:wasmimport extism:host/user pi_ui_notify
func piUINotify(reqPtr, reqLen uint32) int64

//go:wasmimport extism:host/user pi_ui_editor
func piUIEditor(reqPtr, reqLen, dstPtr, dstCap uint32) int64

//go:wasmimport extism:host/user pi_ui_status
func piUIStatus(reqPtr, reqLen uint32) int64

//go:wasmimport extism:host/user pi_ui_title
func piUITitle(reqPtr, reqLen uint32) int64

//go:wasmimport extism:host/user pi_ui_editor_text
func piUIEditorText(reqPtr, reqLen uint32) int64

//go:wasmimport extism:host/user pi_ui_widget
func piUIWidget(reqPtr, reqLen uint32) int64

func uiCall(name string, req []byte) (string, int64) {
	rp, rl := bufPtr(req), uint32(len(req))
	defer runtime.KeepAlive(req)
	var f func(rp, rl, dp, dc uint32) int64
	switch name {
	case abi.HostUIConfirm:
		return "", piUIConfirm(rp, rl)
	case abi.HostUINotify:
		return "", piUINotify(rp, rl)
	case abi.HostUIStatus:
		return "", piUIStatus(rp, rl)
	case abi.HostUITitle:
		return "", piUITitle(rp, rl)
	case abi.HostUIEditorText:
		return "", piUIEditorText(rp, rl)
	case abi.HostUIWidget:
		return "", piUIWidget(rp, rl)
	case abi.HostUISelect:
		f = piUISelect
	case abi.HostUIEditor:
		f = piUIEditor
	default:
		f = piUIInput
	}
	// Asking again with a larger buffer replays the same answer.
	b, err := receive(func(dst, dstCap uint32) int64 { return f(rp, rl, dst, dstCap) })
	if err != nil {
		var ce CodeError
		if errors.As(err, &ce) {
			return "", int64(ce)
		}
		return "", abi.ErrIO
	}
	return string(b), 0
}
