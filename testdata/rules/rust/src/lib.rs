use std::collections::HashMap;
use std::fs::File;

#[derive(Debug, Clone)]
pub struct Config {
    pub name: String,
    values: Vec<i32>,
    map: HashMap<String, i32>,
}

impl Config {
    pub fn new(name: &str) -> Self {
        Config { name: name.to_string(), values: vec![], map: HashMap::new() }
    }

    pub fn load(path: &str) -> Result<Self, std::io::Error> {
        let f = File::open(path).unwrap();
        let n = parse(path).expect("parse");
        let v = maybe().unwrap_or(0);
        println!("{:?} {}", f, n + v);
        Ok(Config::new(path))
    }

    fn sum(&self) -> i32 {
        let mut total = 0;
        for v in self.values.iter() {
            total += v;
        }
        unsafe { raw(total) }
    }
}

fn parse(s: &str) -> Option<i32> {
    match s.len() {
        0 => None,
        n if n > 10 => Some(10),
        n => Some(n as i32),
    }
}

fn maybe() -> Option<i32> { None }

unsafe fn raw(x: i32) -> i32 { x }

#[cfg(test)]
mod tests {
    #[test]
    fn it_works() {
        assert_eq!(2 + 2, 4);
        let x = Some(1).unwrap();
        assert!(x == 1);
    }
}
