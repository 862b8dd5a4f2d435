#!/usr/bin/perl
# Says hello.
use strict;
use warnings;

package Greeter;

sub new {
    my ($class, %args) = @_;
    my $self = { name => $args{name} // 'world', count => 0 };
    return bless $self, $class;
}

sub greet {
    my ($self, @names) = @_;
    $self->{count}++;
    return "hello, $self->{name}" unless @names;
    return join("\n", map { "hello, $_" } @names);
}

package main;

my $g = Greeter->new(name => 'world');
print $g->greet('a', 'b'), "\n";
