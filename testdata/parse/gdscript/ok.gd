extends Node2D
# Says hello.

signal greeted(name)

const GREETING := "hello"
@export var speed: float = 100.0
var count := 0

func _ready() -> void:
	greet("world")

func greet(name: String) -> String:
	count += 1
	var text = "%s, %s" % [GREETING, name]
	emit_signal("greeted", name)
	return text

func _process(delta):
	position.x += speed * delta
	if position.x > 500:
		position.x = 0
