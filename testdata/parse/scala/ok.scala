package greet

import scala.collection.mutable

/** Says hello. */
class Greeter(val name: String) {
  private var count = 0

  def greet(names: String*): String = {
    count += 1
    if (names.isEmpty) s"hello, $name"
    else names.map(n => s"hello, $n").mkString("\n")
  }
}

case class Point(x: Int, y: Int)

object Main {
  def main(args: Array[String]): Unit = {
    val seen = mutable.Set.empty[String]
    println(new Greeter("world").greet("a", "b"))
  }
}
