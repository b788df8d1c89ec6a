package termcaps

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func testImage(t *testing.T, w, h int, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 100, 255})
		}
	}
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngOf(b *bytes.Buffer, img image.Image) error  { return png.Encode(b, img) }
func jpegOf(b *bytes.Buffer, img image.Image) error { return jpeg.Encode(b, img, nil) }

func TestImageITerm2(t *testing.T) {
	data := testImage(t, 90, 45, pngOf)
	lines, ok := Image(ITerm2, data, 100, 10)
	if !ok {
		t.Fatal("not drawn")
	}
	// 90×45 px at 9×18 px a cell in at most 10 columns: 10 columns, 3 rows
	// (45/18 rounded up).
	if len(lines) != 3 || lines[0] != "" || lines[1] != "" {
		t.Fatalf("rows: %q", lines)
	}
	want := "\x1b[2A\x1b]1337;File=inline=1;size=" + itoa(len(data)) + ";width=10;height=auto:" + base64.StdEncoding.EncodeToString(data) + "\a"
	if lines[2] != want {
		t.Errorf("sequence:\n%q\nwant\n%q", lines[2], want)
	}
}

func TestImageKitty(t *testing.T) {
	// A JPEG goes as PNG (kitty's f=100).
	data := testImage(t, 90, 45, jpegOf)
	lines, ok := Image(Kitty, data, 100, 10)
	if !ok {
		t.Fatal("not drawn")
	}
	if !strings.HasPrefix(lines[0], "\x1b_Ga=T,f=100,q=2,C=1,c=10,r=3,i=") || len(lines) != 3 {
		t.Fatalf("sequence over %d lines: %.80q", len(lines), lines[0])
	}
	// The payload, its chunks joined, is a PNG.
	var payload strings.Builder
	for _, m := range regexp.MustCompile("\x1b_G[^;]*;([A-Za-z0-9+/=]*)\x1b\\\\").FindAllStringSubmatch(lines[0], -1) {
		payload.WriteString(m[1])
	}
	raw, err := base64.StdEncoding.DecodeString(payload.String())
	if err != nil || !bytes.HasPrefix(raw, []byte("\x89PNG")) {
		t.Errorf("the payload is not PNG (%v)", err)
	}
}

func TestImageScaledAndChunked(t *testing.T) {
	data := testImage(t, 1200, 600, pngOf)
	lines, ok := Image(Kitty, data, 100, 40)
	if !ok {
		t.Fatal("not drawn")
	}
	if !strings.Contains(lines[0], "c=40,") {
		t.Errorf("columns wrong: %.120q", lines[0])
	}
	seq := kitty(strings.Repeat("A", 9000), 3, 2, 5)
	want := "\x1b_Ga=T,f=100,q=2,C=1,c=3,r=2,i=5,m=1;" + strings.Repeat("A", 4096) + "\x1b\\" +
		"\x1b_Gm=1;" + strings.Repeat("A", 4096) + "\x1b\\" + "\x1b_Gm=0;" + strings.Repeat("A", 808) + "\x1b\\"
	if seq != want {
		t.Errorf("chunks wrong: %.200q", seq)
	}
	narrow, _ := Image(ITerm2, data, 22, 40)
	if !strings.Contains(narrow[len(narrow)-1], "width=20;") {
		t.Errorf("not fitted to a 22-column screen: %.80q", narrow[len(narrow)-1])
	}
	if strings.Contains(narrow[len(narrow)-1], "size="+itoa(len(data))+";") {
		t.Errorf("a 1200-pixel image went at full size into 20 cells")
	}
}

func TestImageRefused(t *testing.T) {
	if _, ok := Image(None, testImage(t, 4, 4, pngOf), 80, 60); ok {
		t.Error("drawn without a protocol")
	}
	if _, ok := Image(Kitty, []byte("not an image"), 80, 60); ok {
		t.Error("drawn from bytes that are no image")
	}
	// A header claiming a huge image is not decoded.
	huge := testImage(t, 1, 1, pngOf)
	huge[16], huge[17], huge[20], huge[21] = 0, 1, 0, 1 // 65536×65536
	if _, ok := Image(Kitty, huge, 80, 60); ok {
		t.Error("a 65536×65536 image was decoded")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
