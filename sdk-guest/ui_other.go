//go:build !wasip1

package sdk

import (
	"encoding/json"
	"strings"

	"github.com/piwasm/pi/abi"
)

// uiCall answers from the Harness in use (default answers without one).
func uiCall(name string, req []byte) (string, int64) {
	h := current
	if h == nil {
		return "", abi.ErrNotFound
	}
	var r abi.UIRequest
	if err := json.Unmarshal(req, &r); err != nil {
		return "", abi.ErrInvalid
	}
	kind := name[len("pi_ui_"):]
	switch kind {
	case "status":
		h.Asked = append(h.Asked, kind+": "+r.Key+"="+r.Text)
		return "", 0
	case "title":
		h.Asked = append(h.Asked, kind+": "+r.Title)
		return "", 0
	case "editor_text":
		h.Asked = append(h.Asked, kind+": "+r.Text)
		return "", 0
	case "widget":
		h.Asked = append(h.Asked, kind+": "+r.Key+"="+strings.Join(r.Lines, "|"))
		return "", 0
	}
	h.Asked = append(h.Asked, kind+": "+r.Title+r.Message)
	if kind == "notify" {
		return "", 0
	}
	if h.Answer == nil {
		if kind == "confirm" {
			return "", 0
		}
		return "", abi.ErrNotFound
	}
	v, ok := h.Answer(kind, r)
	switch {
	case kind == "confirm" && ok && v == "yes":
		return "", 1
	case kind == "confirm":
		return "", 0
	case !ok:
		return "", abi.ErrNotFound
	}
	return v, 0
}
