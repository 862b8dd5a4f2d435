package tools

// Hooks for the external tests.

var TruncateText = truncateText
