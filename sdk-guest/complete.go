package sdk

import (
	"errors"
	"strconv"
	"strings"

	"github.com/piwasm/pi/abi"
)

// Completions registers the completer of command name's argument (the
// established harness's getArgumentCompletions). pi calls it as the person
// types after "/name ", with the text typed so far, when the manifest's
// entry for the command sets `completions: true`. Answer quickly: pi waits
// at most a second and then shows nothing.
func Completions(name string, h func(ev *abi.CommandCompleteEvent) ([]abi.CompletionItem, error)) {
	completers[name] = h
}

// Choices is a completer's usual answer: the choices that start with the
// typed prefix, each with its description (descs may be nil or shorter).
func Choices(prefix string, choices []string, descs []string) []abi.CompletionItem {
	var out []abi.CompletionItem
	for i, c := range choices {
		if !strings.HasPrefix(c, prefix) {
			continue
		}
		it := abi.CompletionItem{Value: c}
		if i < len(descs) {
			it.Description = descs[i]
		}
		out = append(out, it)
	}
	return out
}

var completers = map[string]func(ev *abi.CommandCompleteEvent) ([]abi.CompletionItem, error){}

func handleCommandComplete(ev *abi.CommandCompleteEvent) (abi.JSONAppender, error) {
	h, ok := completers[ev.Name]
	if !ok {
		return nil, errors.New("no completer for command " + strconv.Quote(ev.Name))
	}
	items, err := h(ev)
	return abi.CommandCompleteResult{Items: items}, err
}
