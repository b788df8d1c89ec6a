package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/piwasm/pi/core/tool"
)

// updateEvery is the shortest gap between two partial-output updates.
const updateEvery = 100 * time.Millisecond

// drainGrace is how long output is still collected after the shell exits:
// background children holding the pipe must not keep the call open.
const drainGrace = 200 * time.Millisecond

func (e Env) runBash(ctx context.Context, call tool.Call, update tool.Update) (tool.Result, error) {
	script := strArg(call.Args, "command")
	var timeout time.Duration
	if secs, ok := numArg(call.Args, "timeout"); ok && secs > 0 {
		timeout = time.Duration(math.Min(secs, 1e9) * float64(time.Second))
	}
	if info, err := e.FS.Stat(e.Cwd); err != nil || !info.IsDir() {
		return tool.ErrorResult("The working directory %s does not exist; no command can run there.", e.Cwd), nil
	}
	base := os.Environ()
	if e.Environ != nil {
		base = e.Environ()
	}
	env := append(base, e.Env...)
	if e.CommandPrefix != "" {
		script = e.CommandPrefix + "\n" + script
	}
	cmd, err := e.Shell.Command(ctx, script, e.Cwd, env)
	if err != nil {
		return tool.ErrorResult("Cannot start bash: %v", err), nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return tool.Result{}, fmt.Errorf("bash: output pipe: %w", err)
	}
	// One pipe for both streams keeps stdout and stderr in the order the
	// command wrote them.
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = pw, pw
	ownProcessGroup(cmd)

	out := &outputAccumulator{maxLines: tool.DefaultMaxLines, maxBytes: tool.DefaultMaxBytes, tempDir: e.TempDir}
	defer out.close()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return tool.ErrorResult("Cannot start bash: %v", err), nil
	}
	pw.Close()

	// Reader: collects output and sends throttled partial updates.
	readDone := make(chan struct{})
	var updMu sync.Mutex
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		var last time.Time
		for {
			n, rerr := pr.Read(buf)
			if n > 0 {
				out.append(buf[:n])
				if update != nil && time.Since(last) >= updateEvery {
					last = time.Now()
					updMu.Lock()
					update(out.partial())
					updMu.Unlock()
				}
			}
			if rerr != nil {
				return
			}
		}
	}()

	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var werr error
	var aborted, timedOut bool
	select {
	case werr = <-waitDone:
	case <-ctx.Done():
		aborted = true
		killGroup(cmd)
		werr = <-waitDone
	case <-timer:
		timedOut = true
		killGroup(cmd)
		werr = <-waitDone
	}
	if aborted || timedOut {
		// Anything left in the group (detached children still holding the
		// pipe) goes too.
		killGroup(cmd)
	}
	select {
	case <-readDone:
	case <-time.After(drainGrace):
	}
	pr.Close()
	<-readDone
	updMu.Lock() // no update after the result
	defer updMu.Unlock()

	text, det := out.render()
	status := func(s string) string {
		if text == "" {
			return s
		}
		return text + "\n\n" + s
	}
	switch {
	case aborted:
		return tool.Result{Content: []tool.Part{{Type: "text", Text: status("Command aborted")}}, Details: det, IsError: true}, nil
	case timedOut:
		return tool.Result{Content: []tool.Part{{Type: "text", Text: status(fmt.Sprintf("Command timed out after %s seconds", trimFloat(timeout.Seconds())))}}, Details: det, IsError: true}, nil
	}
	code := 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			return tool.ErrorResult("bash failed: %v", werr), nil
		}
		code = exitCode(ee)
	}
	if text == "" {
		text = "(no output)"
	}
	if code != 0 {
		return tool.Result{Content: []tool.Part{{Type: "text", Text: status(fmt.Sprintf("Command exited with code %d", code))}}, Details: det, IsError: true}, nil
	}
	return tool.Result{Content: []tool.Part{{Type: "text", Text: text}}, Details: det}, nil
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// outputAccumulator keeps a bash command's output within bounded memory: the
// counts, a rolling tail, and — once the output passes the limits — a temp
// file (mode 0600) holding all of it.
type outputAccumulator struct {
	maxLines, maxBytes int
	tempDir            string

	mu         sync.Mutex
	totalBytes int
	newlines   int
	lastByte   byte
	lastLine   int // bytes of the line being written
	tail       []byte
	tailCut    bool // the tail no longer starts at the beginning of the output
	raw        [][]byte
	file       *os.File
	filePath   string
	fileErr    error
}

func (a *outputAccumulator) append(b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.totalBytes += len(b)
	for _, c := range b {
		if c == '\n' {
			a.newlines++
			a.lastLine = 0
		} else {
			a.lastLine++
		}
	}
	a.lastByte = b[len(b)-1]
	a.tail = append(a.tail, b...)
	if keep := 2 * a.maxBytes; len(a.tail) > 2*keep {
		a.tail = append(a.tail[:0], a.tail[len(a.tail)-keep:]...)
		a.tailCut = true
	}
	if a.file == nil && a.fileErr == nil && !a.overLimits() {
		a.raw = append(a.raw, append([]byte(nil), b...))
		return
	}
	a.ensureFile()
	if a.file != nil {
		_, _ = a.file.Write(b)
	}
}

func (a *outputAccumulator) lines() int {
	if a.totalBytes > 0 && a.lastByte != '\n' {
		return a.newlines + 1
	}
	return a.newlines
}

func (a *outputAccumulator) overLimits() bool {
	return a.totalBytes > a.maxBytes || a.lines() > a.maxLines
}

func (a *outputAccumulator) ensureFile() {
	if a.file != nil || a.fileErr != nil {
		return
	}
	f, err := os.CreateTemp(a.tempDir, "pi-bash-*.log")
	if err != nil {
		a.fileErr = err
		return
	}
	_ = f.Chmod(0o600)
	for _, r := range a.raw {
		_, _ = f.Write(r)
	}
	a.raw = nil
	a.file, a.filePath = f, f.Name()
}

func (a *outputAccumulator) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		_ = a.file.Close()
		a.file = nil
	}
}

// view returns the tail as text cut to the limits.
func (a *outputAccumulator) view() (tool.Truncation, bool) {
	tail := a.tail
	if a.tailCut {
		// The rolling tail began mid-line; drop that partial line unless it
		// is all there is.
		if i := indexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
			tail = tail[i+1:]
		}
	}
	text := sanitizeOutput(toValidUTF8(tail))
	tr := tool.TruncateTail(text, a.maxLines, a.maxBytes)
	over := a.overLimits()
	tr.TotalLines, tr.TotalBytes = a.lines(), a.totalBytes
	if over && !tr.Truncated {
		tr.Truncated = true
		tr.By = "bytes"
		if a.lines() > a.maxLines {
			tr.By = "lines"
		}
	}
	return tr, over
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// partial is the update sent while the command runs.
func (a *outputAccumulator) partial() tool.Result {
	a.mu.Lock()
	defer a.mu.Unlock()
	tr, over := a.view()
	if over {
		a.ensureFile()
	}
	r := tool.TextResult(tr.Text)
	if over {
		r.Details = bashDetails(tr, a.filePath)
	}
	return r
}

// render is the final text (without the status line) and details.
func (a *outputAccumulator) render() (string, []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	tr, over := a.view()
	if !over {
		return tr.Text, nil
	}
	a.ensureFile()
	where := a.filePath
	if where == "" {
		where = "(could not be saved: " + fmt.Sprint(a.fileErr) + ")"
	}
	first := tr.TotalLines - tr.ShownLines + 1
	var notice string
	switch {
	case tr.LastLinePartial:
		notice = fmt.Sprintf("[Only the last %s of line %d (%s long) is shown. Full output: %s]",
			formatSize(tr.ShownBytes), tr.TotalLines, formatSize(a.lastLineBytes()), where)
	case tr.By == "lines":
		notice = fmt.Sprintf("[Lines %d-%d of %d shown. Full output: %s]", first, tr.TotalLines, tr.TotalLines, where)
	default:
		notice = fmt.Sprintf("[Lines %d-%d of %d shown, cut at %s. Full output: %s]", first, tr.TotalLines, tr.TotalLines, formatSize(a.maxBytes), where)
	}
	return tr.Text + "\n\n" + notice, bashDetails(tr, a.filePath)
}

func (a *outputAccumulator) lastLineBytes() int {
	if a.lastByte == '\n' {
		// The last line is the one before the final newline; the tail
		// holds it when it matters.
		t := strings.TrimSuffix(string(a.tail), "\n")
		return len(t) - strings.LastIndexByte(t, '\n') - 1
	}
	return a.lastLine
}

// sanitizeOutput drops control characters that garble a transcript (all of
// C0 except tab, newline and carriage return).
func sanitizeOutput(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != 0x1b {
			return -1
		}
		return r
	}, s)
}

// bashDetails is a cut output's details in the established harness's order:
// the truncation, then the file with the whole output.
func bashDetails(tr tool.Truncation, path string) json.RawMessage {
	return details(struct {
		Truncation     tool.Truncation `json:"truncation"`
		FullOutputPath string          `json:"fullOutputPath"`
	}{tr, path})
}
