// Package imagefit shrinks images that are larger than a model takes: an
// image over 2000×2000 pixels is scaled down, keeping its aspect ratio,
// before it is attached to a message (settings images.autoResize, on by
// default, as in the established harness). Scaling uses golang.org/x/image's
// Catmull-Rom resampler.
package imagefit
