package termcaps

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"image"
	_ "image/gif"  // decoding
	_ "image/jpeg" // decoding
	"image/png"
	"math"
	"strings"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decoding
)

// A terminal cell's size in pixels, as the established harness assumes
// until a terminal says otherwise: it sizes the rows an image takes.
const cellW, cellH = 9, 18

// maxPixels refuses images whose header claims more pixels than this:
// decoding them to scale would take the memory of a decompression bomb.
const maxPixels = 50_000_000

// oversample is how many pixels per cell pixel an image keeps when it is
// scaled down before it is sent (sharp on a high-density screen, and far
// fewer bytes through the terminal than a photograph's original).
const oversample = 2

// Image returns the lines that draw an image inline with protocol p: at
// most maxCells cells wide and no wider than width-2, as many lines as
// the image takes rows. ok is false when p is None or the data is not an
// image pi can decode (PNG, JPEG, GIF, WebP); the caller shows its text
// placeholder instead.
func Image(p Protocol, data []byte, width, maxCells int) (lines []string, ok bool) {
	if p == None || len(data) == 0 {
		return nil, false
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return nil, false
	}
	maxW := max(1, min(width-2, maxCells))
	maxH := max(1, int(math.Ceil(float64(maxW*cellW)/cellH)))
	cols, rows := cellSize(cfg.Width, cfg.Height, maxW, maxH, p == Kitty)
	// Kitty takes PNG only; a large image is scaled down either way.
	payload := data
	if p == Kitty && format != "png" || cfg.Width > cols*cellW*oversample {
		if payload, err = toPNG(data, cols*cellW*oversample); err != nil {
			return nil, false
		}
	}
	b64 := base64.StdEncoding.EncodeToString(payload)
	if p == Kitty {
		lines = append(lines, kitty(b64, cols, rows, imageID(data)))
		for i := 1; i < rows; i++ {
			lines = append(lines, "")
		}
		return lines, true
	}
	// iTerm2 draws from the cursor down: the rows are reserved first and
	// the image drawn from the first of them.
	for i := 1; i < rows; i++ {
		lines = append(lines, "")
	}
	up := ""
	if rows > 1 {
		up = fmt.Sprintf("\x1b[%dA", rows-1)
	}
	return append(lines, up+iterm2(b64, len(payload), cols)), true
}

// cellSize is the cells an image of w×h pixels takes within maxW×maxH
// cells; for kitty, which stretches the image over whole cells, a row or
// column is dropped when that distorts it less (as the established
// harness does).
func cellSize(w, h, maxW, maxH int, fit bool) (cols, rows int) {
	ws := float64(maxW*cellW) / float64(w)
	hs := float64(maxH*cellH) / float64(h)
	s := math.Min(ws, hs)
	cols = max(1, min(maxW, int(math.Ceil(float64(w)*s/cellW))))
	rows = max(1, min(maxH, int(math.Ceil(float64(h)*s/cellH))))
	if !fit {
		return cols, rows
	}
	if ws <= hs {
		ideal := float64(cols*cellW*h) / float64(w*cellH)
		rows = lessDistorted(rows, ideal)
	} else {
		ideal := float64(rows*cellH*w) / float64(h*cellW)
		cols = lessDistorted(cols, ideal)
	}
	return cols, rows
}

func lessDistorted(upper int, ideal float64) int {
	if upper <= 1 {
		return upper
	}
	lower := upper - 1
	du := math.Max(float64(upper)/ideal, ideal/float64(upper))
	dl := math.Max(float64(lower)/ideal, ideal/float64(lower))
	if dl < du {
		return lower
	}
	return upper
}

// toPNG decodes data and writes it as PNG, scaled down to at most maxW
// pixels wide.
func toPNG(data []byte, maxW int) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decoding the image: %w", err)
	}
	b := src.Bounds()
	if b.Dx() > maxW {
		h := max(1, b.Dy()*maxW/b.Dx())
		dst := image.NewNRGBA(image.Rect(0, 0, maxW, h))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		src = dst
	}
	var out bytes.Buffer
	if err := png.Encode(&out, src); err != nil {
		return nil, fmt.Errorf("encoding the image: %w", err)
	}
	return out.Bytes(), nil
}

// imageID names a kitty image by its bytes: the same image drawn twice
// reuses one id, and no counter is shared between sessions.
func imageID(data []byte) uint32 {
	h := fnv.New32a()
	h.Write(data)
	if id := h.Sum32(); id != 0 {
		return id
	}
	return 1
}

// kitty is the kitty graphics protocol's transmit-and-display command
// (PNG, quiet, the cursor left in place), in chunks of 4096 bytes.
func kitty(b64 string, cols, rows int, id uint32) string {
	const chunk = 4096
	params := fmt.Sprintf("a=T,f=100,q=2,C=1,c=%d,r=%d,i=%d", cols, rows, id)
	if len(b64) <= chunk {
		return "\x1b_G" + params + ";" + b64 + "\x1b\\"
	}
	var sb strings.Builder
	for off := 0; off < len(b64); off += chunk {
		end := min(off+chunk, len(b64))
		more := 1
		if end == len(b64) {
			more = 0
		}
		if off == 0 {
			fmt.Fprintf(&sb, "\x1b_G%s,m=1;%s\x1b\\", params, b64[off:end])
		} else {
			fmt.Fprintf(&sb, "\x1b_Gm=%d;%s\x1b\\", more, b64[off:end])
		}
	}
	return sb.String()
}

// iterm2 is iTerm2's inline file sequence, cols cells wide (the height
// follows the aspect ratio).
func iterm2(b64 string, size, cols int) string {
	return fmt.Sprintf("\x1b]1337;File=inline=1;size=%d;width=%d;height=auto:%s\a", size, cols, b64)
}
