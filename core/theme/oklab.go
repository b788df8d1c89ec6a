package theme

import "math"

// OKLab, OKLCH and OKHSL are Björn Ottosson's colour spaces
// (https://bottosson.github.io/posts/oklab/ and /posts/colorpicker/,
// whose reference code is MIT-licensed); the matrices and the fitted
// polynomials below are the published constants. They are written out
// here because no dependency pi has converts them (lipgloss works in sRGB
// and its downsampling takes sRGB), and the theme format needs the exact
// sRGB value the established harness computes for the same text.

type vec3 [3]float64

type mat3 [3]vec3

func (m *mat3) mul(v vec3) vec3 {
	return vec3{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

var (
	linearToLMS = mat3{
		{0.4122214694707629, 0.5363325372617349, 0.0514459932675022},
		{0.2119034958178251, 0.6806995506452344, 0.1073969535369405},
		{0.0883024591900564, 0.2817188391361215, 0.6299787016738222},
	}
	lmsToLab = mat3{
		{0.210454268309314, 0.793617774702305, -0.0040720430116193},
		{1.9779985324311684, -2.42859224204858, 0.450593709617411},
		{0.0259040424655478, 0.7827717124575296, -0.8086757549230774},
	}
	labToLMS = mat3{
		{1, 0.3963377773761749, 0.2158037573099136},
		{1, -0.1055613458156586, -0.0638541728258133},
		{1, -0.0894841775298119, -1.2914855480194092},
	}
	lmsToLinear = mat3{
		{4.0767416360759583, -3.3077115392580629, 0.2309699031821043},
		{-1.2684379732850315, 2.6097573492876882, -0.341319376002657},
		{-0.0041960761386756, -0.7034186179359362, 1.7076146940746117},
	}
)

// labToLinear converts OKLab to linear sRGB (which may be out of gamut).
func labToLinear(lab vec3) vec3 {
	lms := labToLMS.mul(lab)
	for i, v := range lms {
		lms[i] = v * v * v
	}
	return lmsToLinear.mul(lms)
}

// linearToLab converts linear sRGB to OKLab.
func linearToLab(rgb vec3) vec3 {
	lms := linearToLMS.mul(rgb)
	for i, v := range lms {
		lms[i] = math.Cbrt(v)
	}
	return lmsToLab.mul(lms)
}

func encode(v float64) float64 {
	if v > 0.0031308 {
		return 1.055*math.Pow(v, 1/2.4) - 0.055
	}
	return 12.92 * v
}

func decode(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// toBytes encodes linear sRGB as 0-255 channels, clipping what is outside
// the gamut.
func toBytes(rgb vec3) (r, g, b uint8) {
	var out [3]uint8
	for i, v := range rgb {
		out[i] = uint8(math.Round(math.Min(1, math.Max(0, encode(v))) * 255))
	}
	return out[0], out[1], out[2]
}

// Lab returns the OKLab coordinates of an sRGB colour.
func Lab(r, g, b uint8) (l, a, bb float64) {
	v := linearToLab(vec3{decode(float64(r) / 255), decode(float64(g) / 255), decode(float64(b) / 255)})
	return v[0], v[1], v[2]
}

func inGamut(rgb vec3) bool {
	const eps = 1e-7
	for _, v := range rgb {
		if v < -eps || v > 1+eps {
			return false
		}
	}
	return true
}

// OKLCH converts lightness (0-1), chroma and hue (degrees) to sRGB. A
// colour outside the sRGB gamut keeps its lightness and hue and loses
// chroma until it fits (bisection, as CSS Color 4 gamut mapping does in
// spirit); the grey of that lightness always fits.
func OKLCH(l, c, h float64) (r, g, b uint8) {
	rad := h * math.Pi / 180
	cos, sin := math.Cos(rad), math.Sin(rad)
	at := func(chroma float64) vec3 { return labToLinear(vec3{l, chroma * cos, chroma * sin}) }
	if v := at(c); inGamut(v) {
		return toBytes(v)
	}
	best, lo, hi := at(0), 0.0, c
	for range 20 {
		mid := (lo + hi) / 2
		if v := at(mid); inGamut(v) {
			lo, best = mid, v
		} else {
			hi = mid
		}
	}
	return toBytes(best)
}

// OKHSL's lightness is a remapping of OKLab's (toe function).
const (
	toeK1 = 0.206
	toeK2 = 0.03
	toeK3 = (1 + toeK1) / (1 + toeK2)
)

func toeInv(x float64) float64 { return (x*x + toeK1*x) / (toeK3 * (x + toeK2)) }

// OKHSL converts hue (degrees), saturation and lightness (both 0-1) to
// sRGB. Saturation is relative to the most chroma sRGB holds at that hue
// and lightness, so every value is inside the gamut.
func OKHSL(h, s, l float64) (r, g, b uint8) {
	L := toeInv(l)
	lab := vec3{L, 0, 0}
	if L > 0 && L < 1 && s > 0 {
		rad := 2 * math.Pi * math.Mod(math.Mod(h, 360)+360, 360) / 360
		a, bb := math.Cos(rad), math.Sin(rad)
		c0, cMid, cMax := chromaStops(L, a, bb)
		var c float64
		if s < 0.8 {
			t := 1.25 * s
			k1 := 0.8 * c0
			c = t * k1 / (1 - (1-k1/cMid)*t)
		} else {
			t := 5 * (s - 0.8)
			k1 := 0.2 * cMid * cMid * 1.25 * 1.25 / c0
			c = cMid + t*k1/(1-(1-k1/(cMax-cMid))*t)
		}
		lab = vec3{L, c * a, c * bb}
	}
	return toBytes(labToLinear(lab))
}

// lmsSlopes is how each cube-root LMS component changes along the chroma
// direction (a, b).
func lmsSlopes(a, b float64) vec3 {
	return vec3{labToLMS[0][1]*a + labToLMS[0][2]*b, labToLMS[1][1]*a + labToLMS[1][2]*b, labToLMS[2][1]*a + labToLMS[2][2]*b}
}

// maxSaturation is the largest C/L inside sRGB for the hue direction
// (a, b): Ottosson's polynomial fit for the channel that clips first, then
// one Halley step.
func maxSaturation(a, b float64) float64 {
	fits := [3]struct {
		edge [2]float64
		k    [5]float64
	}{
		{[2]float64{-1.8817031, -0.80936501}, [5]float64{1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245}},
		{[2]float64{1.8144408, -1.19445267}, [5]float64{0.73956515, -0.45954404, 0.08285427, 0.12541073, -0.14503204}},
		{[2]float64{0.13110758, 1.81333971}, [5]float64{1.35733652, -0.00915799, -1.1513021, -0.50559606, 0.00692167}},
	}
	ch := 2
	for i := range 2 {
		if fits[i].edge[0]*a+fits[i].edge[1]*b > 1 {
			ch = i
			break
		}
	}
	k := fits[ch].k
	w := lmsToLinear[ch]
	sat := k[0] + k[1]*a + k[2]*b + k[3]*a*a + k[4]*a*b
	sl := lmsSlopes(a, b)
	var f, f1, f2 float64
	for i := range 3 {
		base := 1 + sat*sl[i]
		f += w[i] * base * base * base
		f1 += w[i] * 3 * sl[i] * base * base
		f2 += w[i] * 6 * sl[i] * sl[i] * base
	}
	return sat - f*f1/(f1*f1-0.5*f*f2)
}

// cusp is the OKLab lightness and chroma of the most saturated sRGB colour
// of the hue (a, b).
func cusp(a, b float64) (l, c float64) {
	s := maxSaturation(a, b)
	v := labToLinear(vec3{1, s * a, s * b})
	l = math.Cbrt(1 / math.Max(v[0], math.Max(v[1], v[2])))
	return l, l * s
}

// maxChroma is where the line of constant lightness L leaves the gamut.
func maxChroma(a, b, L, cuspL, cuspC float64) float64 {
	if L <= cuspL {
		return cuspC * L / cuspL
	}
	t := cuspC * (L - 1) / (cuspL - 1)
	sl := lmsSlopes(a, b)
	var lms, d1, d2 vec3
	for i := range 3 {
		lms[i] = L + t*sl[i]
		d1[i] = 3 * sl[i] * lms[i] * lms[i]
		d2[i] = 6 * sl[i] * sl[i] * lms[i]
	}
	step := math.MaxFloat64
	for _, row := range lmsToLinear {
		f := row[0]*lms[0]*lms[0]*lms[0] + row[1]*lms[1]*lms[1]*lms[1] + row[2]*lms[2]*lms[2]*lms[2] - 1
		f1 := row[0]*d1[0] + row[1]*d1[1] + row[2]*d1[2]
		f2 := row[0]*d2[0] + row[1]*d2[1] + row[2]*d2[2]
		u := f1 / (f1*f1 - 0.5*f*f2)
		if u >= 0 {
			step = math.Min(step, -f*u)
		}
	}
	return t + step
}

// chromaStops are OKHSL's reference chromas at lightness L and hue (a, b):
// at saturation 0 (c0's slope), 0.8 (cMid) and 1 (cMax).
func chromaStops(L, a, b float64) (c0, cMid, cMax float64) {
	cl, cc := cusp(a, b)
	cMax = maxChroma(a, b, L, cl, cc)
	k := cMax / math.Min(L*(cc/cl), (1-L)*(cc/(1-cl)))
	midS := 0.11516993 + 1/(7.4477897+4.1590124*b+a*(-2.19557347+1.75198401*b+a*(-2.13704948-10.02301043*b+a*(-4.24894561+5.38770819*b+4.69891013*a))))
	midT := 0.11239642 + 1/(1.6132032-0.68124379*b+a*(0.40370612+0.90148123*b+a*(-0.27087943+0.6122399*b+a*(0.00299215-0.45399568*b-0.14661872*a))))
	cMid = 0.9 * k * math.Sqrt(math.Sqrt(1/(1/math.Pow(L*midS, 4)+1/math.Pow((1-L)*midT, 4))))
	c0 = math.Sqrt(1 / (1/math.Pow(L*0.4, 2) + 1/math.Pow((1-L)*0.8, 2)))
	return c0, cMid, cMax
}
