package imagefit

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

func pngOf(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x += 7 {
		img.Set(x, h/2, color.RGBA{255, 0, 0, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFit(t *testing.T) {
	small := pngOf(t, 300, 200)
	out, mime, w, h, resized, err := Fit(small, "image/png")
	if err != nil || resized || !bytes.Equal(out, small) || mime != "image/png" || w != 300 || h != 200 {
		t.Fatalf("small image changed: %v %v %s %dx%d", err, resized, mime, w, h)
	}
	for _, tc := range []struct{ w, h, ww, wh int }{{4000, 1000, 2000, 500}, {1000, 3000, 667, 2000}, {2001, 2001, 2000, 2000}} {
		out, mime, w, h, resized, err := Fit(pngOf(t, tc.w, tc.h), "image/png")
		if err != nil || !resized || mime != "image/png" || w != tc.ww || h != tc.wh {
			t.Fatalf("%dx%d: %v %v %s %dx%d", tc.w, tc.h, err, resized, mime, w, h)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(out))
		if err != nil || cfg.Width != tc.ww || cfg.Height != tc.wh {
			t.Fatalf("encoded %dx%d: %v", cfg.Width, cfg.Height, err)
		}
	}
	var j bytes.Buffer
	jpeg.Encode(&j, image.NewRGBA(image.Rect(0, 0, 2500, 100)), nil)
	if _, mime, _, _, resized, err := Fit(j.Bytes(), "image/jpeg"); err != nil || !resized || mime != "image/jpeg" {
		t.Fatalf("jpeg: %v %v %s", err, resized, mime)
	}
	if out, _, _, _, resized, err := Fit([]byte("not an image"), "image/png"); err != nil || resized || string(out) != "not an image" {
		t.Fatal("undecodable data changed")
	}
}

func FuzzFit(f *testing.F) {
	f.Add(pngOf(&testing.T{}, 3, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, w, h, resized, err := Fit(data, "image/png")
		if err == nil && resized && (w > MaxSide || h > MaxSide || len(out) == 0) {
			t.Fatalf("%dx%d", w, h)
		}
	})
}
