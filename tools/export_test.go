package tools

var TruncateText = truncateText
