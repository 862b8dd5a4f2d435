sub greet {
    my ($self = @_;
    return join("\n", map { "hello, $_" } @names;
