package tool

import "fmt"

// FormatSize writes a byte count the way tool results state sizes (as the
// established harness does): bytes, then KB and MB with one decimal.
func FormatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}
