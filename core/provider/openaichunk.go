package provider

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// decodeOpenAIChunk decodes one streamed chat completion chunk into c, as
// json.Unmarshal would. A reply arrives as hundreds of chunks of a few
// bytes of text or arguments each, and json.Unmarshal's reflection made
// their decoding the largest part of a turn's CPU and allocations; this
// reads the shape servers send without reflection.
//
// It accepts only what it can decode exactly as json.Unmarshal does and
// reports false for anything else (an error member, a duplicate or
// differently cased key, a \u escape, a number that is not a plain integer,
// invalid JSON, …): the caller then decodes with json.Unmarshal, which
// gives the same result or the error. FuzzOpenAIChunk holds the two
// together.
func decodeOpenAIChunk(data []byte, c *openAIChunk) bool {
	d := chunkDecoder{b: data}
	d.ws()
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			return d.choices(c)
		case "usage":
			return d.usage(&c.Usage)
		case "id":
			return d.rawShared(&c.ID)
		case "model":
			return d.rawShared(&c.Model)
		case "error":
			return false
		}
		return d.unknown(key, "choices", "usage", "id", "model", "error")
	})
	if !ok {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

// chunkDecoder reads JSON from b at i. Every method reports false on input
// it does not take, leaving i anywhere: the whole decode is then abandoned.
type chunkDecoder struct {
	b     []byte
	i     int
	depth int
}

// maxChunkDepth bounds the nesting the decoder follows (json.Unmarshal's
// bound is far higher; a deeper chunk goes to it).
const maxChunkDepth = 32

func (d *chunkDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *chunkDecoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// literal consumes lit ("null", "true", "false").
func (d *chunkDecoder) literal(lit string) bool {
	if len(d.b)-d.i < len(lit) || string(d.b[d.i:d.i+len(lit)]) != lit {
		return false
	}
	d.i += len(lit)
	return true
}

// object reads an object, calling member for each key with i at its value
// (whitespace skipped) and expecting i after the value on return. A key
// seen twice, or written with escapes or non-ASCII letters, is refused:
// json.Unmarshal's answers to those depend on its matching rules.
func (d *chunkDecoder) object(member func(key []byte) bool) bool {
	if d.peek() != '{' || d.depth >= maxChunkDepth {
		return false
	}
	d.depth++
	d.i++
	d.ws()
	var seen [16][]byte
	n := 0
	if d.peek() == '}' {
		d.i++
		d.depth--
		return true
	}
	for {
		key, ok := d.key()
		if !ok {
			return false
		}
		for _, k := range seen[:n] {
			if string(k) == string(key) {
				return false
			}
		}
		if n == len(seen) {
			return false
		}
		seen[n] = key
		n++
		d.ws()
		if d.peek() != ':' {
			return false
		}
		d.i++
		d.ws()
		if !member(key) {
			return false
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// key reads an object key made of printable ASCII without escapes.
func (d *chunkDecoder) key() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			return d.b[start:j], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// unknown skips the value of a key the chunk type has no field for. A key
// that json.Unmarshal would match to one of known in another letter case
// is refused.
func (d *chunkDecoder) unknown(key []byte, known ...string) bool {
	for _, k := range known {
		if strings.EqualFold(string(key), k) {
			return false
		}
	}
	return d.skip()
}

// array reads an array, calling elem with i at each element.
func (d *chunkDecoder) array(elem func() bool) bool {
	if d.peek() != '[' || d.depth >= maxChunkDepth {
		return false
	}
	d.depth++
	d.i++
	d.ws()
	if d.peek() == ']' {
		d.i++
		d.depth--
		return true
	}
	for {
		if !elem() {
			return false
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.i++
			d.ws()
		case ']':
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// str reads a string value. Escapes other than \u are decoded; a \u escape
// or invalid UTF-8 is refused (json.Unmarshal handles surrogates and
// replaces bad bytes).
func (d *chunkDecoder) str() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start := d.i + 1
	j := start
	for j < len(d.b) {
		c := d.b[j]
		switch {
		case c == '"':
			d.i = j + 1
			return string(d.b[start:j]), true
		case c == '\\':
			return d.strEscaped(start, j)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(d.b[j:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			j += size
		}
	}
	return "", false
}

// skipStr is str for a value nobody keeps (a chunk's id, model, object):
// it takes and refuses exactly what str does, without making the string.
func (d *chunkDecoder) skipStr() bool {
	if d.peek() != '"' {
		return false
	}
	for j := d.i + 1; j < len(d.b); {
		c := d.b[j]
		switch {
		case c == '"':
			d.i = j + 1
			return true
		case c == '\\':
			if j+1 >= len(d.b) {
				return false
			}
			switch d.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			default:
				return false
			}
		case c < 0x20:
			return false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(d.b[j:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			j += size
		}
	}
	return false
}

// strEscaped finishes a string from start whose first escape is at j.
func (d *chunkDecoder) strEscaped(start, j int) (string, bool) {
	var out strings.Builder
	out.Grow(len(d.b) - start)
	out.Write(d.b[start:j])
	for j < len(d.b) {
		c := d.b[j]
		switch {
		case c == '"':
			d.i = j + 1
			return out.String(), true
		case c == '\\':
			if j+1 >= len(d.b) {
				return "", false
			}
			switch e := d.b[j+1]; e {
			case '"', '\\', '/':
				out.WriteByte(e)
			case 'b':
				out.WriteByte('\b')
			case 'f':
				out.WriteByte('\f')
			case 'n':
				out.WriteByte('\n')
			case 'r':
				out.WriteByte('\r')
			case 't':
				out.WriteByte('\t')
			default:
				return "", false
			}
			j += 2
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			out.WriteByte(c)
			j++
		default:
			r, size := utf8.DecodeRune(d.b[j:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			out.Write(d.b[j : j+size])
			j += size
		}
	}
	return "", false
}

// skip validates and skips any value.
func (d *chunkDecoder) skip() bool {
	switch c := d.peek(); {
	case c == '"':
		return d.skipStr()
	case c == '{':
		return d.object(func(key []byte) bool { return d.skip() })
	case c == '[':
		return d.array(d.skip)
	case c == 'n':
		return d.literal("null")
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return false
}

// number validates and skips a number as JSON's grammar has it.
func (d *chunkDecoder) number() bool {
	b, i := d.b, d.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return true
}

// smallInt reads an integer of at most 9 digits (so it fits any int),
// refusing fractions and exponents, which json.Unmarshal refuses for an int.
func (d *chunkDecoder) smallInt() (int, bool) {
	b, i := d.b, d.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start, n := i, 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	digits := i - start
	if digits == 0 || digits > 9 || digits > 1 && b[start] == '0' {
		return 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, false
	}
	d.i = i
	if neg {
		n = -n
	}
	return n, true
}

// optString reads a string into a *string field (null: nil).
func (d *chunkDecoder) optString(p **string) bool {
	if d.peek() == 'n' {
		*p = nil
		return d.literal("null")
	}
	s, ok := d.str()
	if !ok {
		return false
	}
	*p = &s
	return true
}

// plainString reads a string into a string field (null leaves it as it is).
func (d *chunkDecoder) plainString(p *string) bool {
	if d.peek() == 'n' {
		return d.literal("null")
	}
	s, ok := d.str()
	if ok {
		*p = s
	}
	return ok
}

// rawShared reads any value into a json.RawMessage field without copying
// it: the field then points into the chunk's data, so it must be read
// before the next chunk is decoded. Every chunk repeats the response's id
// and model, and a copy of each would be two allocations a chunk.
func (d *chunkDecoder) rawShared(p *json.RawMessage) bool {
	start := d.i
	if !d.skip() {
		return false
	}
	*p = json.RawMessage(d.b[start:d.i:d.i])
	return true
}

// raw reads any value into a json.RawMessage field (a copy, as
// json.Unmarshal keeps one).
func (d *chunkDecoder) raw(p *json.RawMessage) bool {
	start := d.i
	if !d.skip() {
		return false
	}
	*p = append(json.RawMessage(nil), d.b[start:d.i]...)
	return true
}

func (d *chunkDecoder) choices(c *openAIChunk) bool {
	if d.peek() == 'n' {
		c.Choices = nil
		return d.literal("null")
	}
	if cap(c.Choices) > 0 {
		c.Choices = c.Choices[:0] // a stream's chunk, reused: each element is zeroed as it is appended
	} else {
		c.Choices = make([]openAIChoice, 0, 1)
	}
	return d.array(func() bool {
		c.Choices = append(c.Choices, openAIChoice{})
		ch := &c.Choices[len(c.Choices)-1]
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "delta":
				if d.peek() == 'n' {
					return d.literal("null")
				}
				dl := &ch.Delta
				return d.object(func(key []byte) bool {
					switch string(key) {
					case "content":
						return d.optString(&dl.Content)
					case "reasoning_content":
						return d.raw(&dl.ReasoningContent)
					case "reasoning":
						return d.raw(&dl.Reasoning)
					case "reasoning_text":
						return d.raw(&dl.ReasoningText)
					case "tool_calls":
						return d.toolCalls(&dl.ToolCalls)
					}
					return d.unknown(key, "content", "reasoning_content", "reasoning", "reasoning_text", "tool_calls")
				})
			case "finish_reason":
				return d.optString(&ch.FinishReason)
			case "usage":
				return d.usage(&ch.Usage)
			}
			return d.unknown(key, "delta", "finish_reason", "usage")
		})
	})
}

func (d *chunkDecoder) toolCalls(p *[]openAIToolPart) bool {
	if d.peek() == 'n' {
		*p = nil
		return d.literal("null")
	}
	*p = make([]openAIToolPart, 0, 1)
	return d.array(func() bool {
		*p = append(*p, openAIToolPart{})
		tp := &(*p)[len(*p)-1]
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "index":
				if d.peek() == 'n' {
					tp.Index = nil
					return d.literal("null")
				}
				n, ok := d.smallInt()
				if ok {
					tp.Index = &n
				}
				return ok
			case "id":
				return d.plainString(&tp.ID)
			case "function":
				if d.peek() == 'n' {
					tp.Function = nil
					return d.literal("null")
				}
				if tp.Function == nil {
					tp.Function = &openAIFuncPart{}
				}
				f := tp.Function
				return d.object(func(key []byte) bool {
					switch string(key) {
					case "name":
						return d.plainString(&f.Name)
					case "arguments":
						return d.plainString(&f.Arguments)
					}
					return d.unknown(key, "name", "arguments")
				})
			}
			return d.unknown(key, "index", "id", "function")
		})
	})
}

// usage reads the token counts (null: nil), which servers send in the last
// chunk of every reply. Counts of more than 9 digits go to json.Unmarshal.
func (d *chunkDecoder) usage(p **openAIUsage) bool {
	if d.peek() == 'n' {
		*p = nil
		return d.literal("null")
	}
	if *p == nil {
		*p = &openAIUsage{}
	}
	u := *p
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return d.plainInt(&u.PromptTokens)
		case "completion_tokens":
			return d.plainInt(&u.CompletionTokens)
		case "reasoning_tokens":
			return d.plainInt(&u.ReasoningTokens)
		case "completion_tokens_details":
			if d.peek() == 'n' {
				return d.literal("null")
			}
			cd := &u.CompletionTokensDetails
			return d.object(func(key []byte) bool {
				if string(key) == "reasoning_tokens" {
					return d.plainInt(&cd.ReasoningTokens)
				}
				return d.unknown(key, "reasoning_tokens")
			})
		case "prompt_cache_hit_tokens":
			return d.optInt(&u.PromptCacheHitTokens)
		case "cached_tokens":
			return d.optInt(&u.CachedTokens)
		case "prompt_tokens_details":
			if d.peek() == 'n' {
				u.PromptTokensDetails = nil
				return d.literal("null")
			}
			if u.PromptTokensDetails == nil {
				u.PromptTokensDetails = &struct {
					CachedTokens     *int `json:"cached_tokens"`
					CacheWriteTokens int  `json:"cache_write_tokens"`
				}{}
			}
			pd := u.PromptTokensDetails
			return d.object(func(key []byte) bool {
				switch string(key) {
				case "cached_tokens":
					return d.optInt(&pd.CachedTokens)
				case "cache_write_tokens":
					return d.plainInt(&pd.CacheWriteTokens)
				}
				return d.unknown(key, "cached_tokens", "cache_write_tokens")
			})
		}
		return d.unknown(key, "prompt_tokens", "completion_tokens", "prompt_cache_hit_tokens", "cached_tokens", "prompt_tokens_details",
			"reasoning_tokens", "completion_tokens_details", "cost", "is_byok", "cost_details")
	})
}

// plainInt reads an integer into an int field (null leaves it as it is).
func (d *chunkDecoder) plainInt(p *int) bool {
	if d.peek() == 'n' {
		return d.literal("null")
	}
	n, ok := d.smallInt()
	if ok {
		*p = n
	}
	return ok
}

// optInt reads an integer into an *int field (null: nil).
func (d *chunkDecoder) optInt(p **int) bool {
	if d.peek() == 'n' {
		*p = nil
		return d.literal("null")
	}
	n, ok := d.smallInt()
	if ok {
		*p = &n
	}
	return ok
}
