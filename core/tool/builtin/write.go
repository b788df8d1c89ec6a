package builtin

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/piwasm/pi/core/tool"
)

func (e Env) runWrite(ctx context.Context, call tool.Call, _ tool.Update) (tool.Result, error) {
	path := strArg(call.Args, "path")
	content := strArg(call.Args, "content")
	_, real, err := e.open("write", Write, path)
	if err != nil {
		return tool.ErrorResult("%v", err), nil
	}
	unlock := e.Locks.Lock(real)
	defer unlock()
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if info, err := e.FS.Stat(real); err == nil && info.IsDir() {
		return tool.ErrorResult("%s is a directory; give a file path to write.", path), nil
	}
	if err := e.FS.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return tool.ErrorResult("%s", describeFSError("create the directories for", path, err)), nil
	}
	if err := e.FS.WriteFile(real, []byte(content), 0o644); err != nil {
		return tool.ErrorResult("%s", describeFSError("write", path, err)), nil
	}
	return tool.TextResult(fmt.Sprintf("Wrote %d bytes to %s.", len(content), path)), nil
}
