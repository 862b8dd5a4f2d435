int greet(const char *name {
    return printf("hello, %s\n", name;
}
