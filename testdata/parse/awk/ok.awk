# Says hello to every name on the input.
BEGIN { FS = ","; count = 0 }

/^#/ { next }

{
    for (i = 1; i <= NF; i++) {
        names[count++] = $i
    }
}

function greet(n) {
    return "hello, " n
}

END {
    for (i = 0; i < count; i++) print greet(names[i])
    printf("%d names\n", count)
}
