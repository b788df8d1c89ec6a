package provider

// Notes put where an image was left out of a request. Consecutive images
// of one message share one note.
const (
	noImagesNote    = "(an image was left out: this model does not take images)"
	blockImagesNote = "(an image was left out: images are turned off in settings)"
)

// withoutImages replaces the image parts of req's messages with a note
// when the route's model takes no images or images are turned off. Only
// messages with images are copied (without their Memo, whose encodings
// hold the images).
func withoutImages(route Route, req Request) Request {
	if !route.NoImages && !route.BlockImages {
		return req
	}
	note := noImagesNote
	if route.BlockImages {
		note = blockImagesNote
	}
	var msgs []Message
	for i, m := range req.Messages {
		if !hasImage(m.Parts) {
			if msgs != nil {
				msgs = append(msgs, m)
			}
			continue
		}
		if msgs == nil {
			msgs = append(make([]Message, 0, len(req.Messages)), req.Messages[:i]...)
		}
		c := m
		c.Memo = nil
		c.Parts = nil
		for _, p := range m.Parts {
			if p.Type != PartImage {
				c.Parts = append(c.Parts, p)
				continue
			}
			if n := len(c.Parts); n > 0 && c.Parts[n-1].Type == PartText && c.Parts[n-1].Text == note {
				continue
			}
			c.Parts = append(c.Parts, Part{Type: PartText, Text: note})
		}
		msgs = append(msgs, c)
	}
	if msgs != nil {
		req.Messages = msgs
	}
	return req
}
