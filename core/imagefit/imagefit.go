package imagefit

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // decoding
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decoding only: a scaled WebP is written as PNG
)

// MaxSide is the largest width and height an image is sent with.
const MaxSide = 2000

// maxPixels refuses to decode images whose header claims more pixels than
// this (a decompression bomb would otherwise take all memory).
const maxPixels = 100_000_000

// Fit returns data unchanged when the image fits in MaxSide×MaxSide (or
// cannot be decoded: the model gets it as it is), else the image scaled
// down to fit, as PNG or JPEG (JPEG stays JPEG; PNG, GIF and WebP become
// PNG), with its new MIME type. resized says whether it was scaled; w and
// h are the size sent.
func Fit(data []byte, mime string) (out []byte, outMime string, w, h int, resized bool, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return data, mime, 0, 0, false, nil
	}
	if cfg.Width <= MaxSide && cfg.Height <= MaxSide {
		return data, mime, cfg.Width, cfg.Height, false, nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return nil, "", 0, 0, false, fmt.Errorf("image of %d×%d pixels is too large to scale", cfg.Width, cfg.Height)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", 0, 0, false, fmt.Errorf("decoding the image: %w", err)
	}
	w, h = scaled(cfg.Width, cfg.Height)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var buf bytes.Buffer
	switch mime {
	case "image/jpeg":
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
		outMime = "image/jpeg"
	default:
		err = png.Encode(&buf, dst)
		outMime = "image/png"
	}
	if err != nil {
		return nil, "", 0, 0, false, fmt.Errorf("encoding the scaled image: %w", err)
	}
	return buf.Bytes(), outMime, w, h, true, nil
}

// scaled is w×h shrunk to fit MaxSide×MaxSide, keeping the ratio.
func scaled(w, h int) (int, int) {
	if w >= h {
		return MaxSide, max(1, (h*MaxSide+w/2)/w)
	}
	return max(1, (w*MaxSide+h/2)/h), MaxSide
}
