package com.example.app

import com.example.data.Repository
import com.example.ui.Screen
import kotlinx.coroutines.launch

data class User(val id: Int, val name: String?)

class UserViewModel(private val repo: Repository) {
    private var cache: MutableList<User> = mutableListOf()

    fun load(id: Int): User? {
        val user = repo.find(id)!!
        println("loaded " + user.name)
        if (user.name == null) {
            return null
        }
        cache.add(user)
        return user
    }

    suspend fun refresh() {
        scope.launch {
            repo.sync()
        }
        for (u in cache) {
            println(u.name!!.length)
        }
    }

    fun describe(u: User): String = when (u.id) {
        0 -> "root"
        1, 2 -> "admin"
        else -> "user"
    }
}

fun main() {
    val vm = UserViewModel(Repository())
    vm.load(1)
    val names = listOf("a", "b").map { it.uppercase() }
    println(names)
}
