package greet

import kotlin.math.max

/** Says hello. */
class Greeter(private val name: String) {
    private var count = 0

    fun greet(vararg names: String): String {
        count++
        if (names.isEmpty()) {
            return "hello, $name"
        }
        return names.joinToString("\n") { "hello, $it" }
    }
}

data class Point(val x: Int, val y: Int)

fun main() {
    val g = Greeter("world")
    println(g.greet("a", "b"))
    println(max(Point(1, 2).x, 3))
}
