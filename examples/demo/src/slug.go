package main

// alphabet holds the 62 characters a slug is written with.
const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// Slug writes a link's numeric id in base 62, most significant digit first.
func Slug(id uint64) string {
	var out []byte
	for id > 0 {
		out = append([]byte{alphabet[id%62]}, out...)
		id /= 62
	}
	return string(out)
}
