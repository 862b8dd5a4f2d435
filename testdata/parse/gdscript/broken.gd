func greet(name: String) -> String
	var text = "%s" % [
	return
