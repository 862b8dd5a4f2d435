use std::collections::HashMap;
use std::fmt;

/// A greeter.
#[derive(Debug, Default)]
pub struct Greeter<'a> {
    name: &'a str,
    count: usize,
}

impl<'a> Greeter<'a> {
    pub fn greet(&mut self, names: &[&str]) -> String {
        self.count += 1;
        match names {
            [] => format!("hello, {}", self.name),
            _ => format!("hello, {}", names.join(", ")),
        }
    }
}

impl fmt::Display for Greeter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

pub fn counts<T: std::hash::Hash + Eq + Clone>(xs: &[T]) -> HashMap<T, usize> {
    let mut m = HashMap::new();
    for x in xs {
        *m.entry(x.clone()).or_insert(0) += 1;
    }
    m
}
