//! Arithmetic expressions of position and time, as case files write boundary data:
//! `"4*0.3*y*(0.41-y)/0.41^2"`, `"1.5*sin(pi*t/8)"`.
//!
//! The grammar, with the usual precedence (`^` binds tightest and to the right, unary minus
//! below it, so `-2^2 = -4` and `2^-1 = 0.5`):
//!
//! ```text
//! sum     = product (("+" | "-") product)*
//! product = unary (("*" | "/") unary)*
//! unary   = ("-" | "+") unary | power
//! power   = atom ("^" unary)?
//! atom    = number | variable | constant | function "(" sum ("," sum)* ")" | "(" sum ")"
//! ```
//!
//! Variables `x`, `y`, `z` (0 in 2D) and `t`; constants `pi` and `e`; functions `sin cos tan asin
//! acos atan sinh cosh tanh exp ln log sqrt abs floor ceil` of one argument and `atan2 min max pow`
//! of two. Every number is a float (`1/2` is 0.5). Written here rather than taken from a crate
//! because the maintained evaluators (evalexpr) divide integers as integers and name functions
//! `math::sin`, both traps in a case file.

/// A parsed expression.
#[derive(Debug, Clone)]
pub struct Expr {
    root: Node,
}

/// A syntax error: where (a character offset, from 0) and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("in `{text}` at character {position}: {message}")]
pub struct ExprError {
    /// The expression.
    pub text: String,
    /// Offset of the offending character.
    pub position: usize,
    /// What was expected.
    pub message: String,
}

#[derive(Debug, Clone)]
enum Node {
    Number(f64),
    Variable(usize),
    Negate(Box<Node>),
    Binary(char, Box<Node>, Box<Node>),
    Call(Function, Vec<Node>),
}

#[derive(Debug, Clone, Copy)]
enum Function {
    One(fn(f64) -> f64),
    Two(fn(f64, f64) -> f64),
}

const VARIABLES: [&str; 4] = ["x", "y", "z", "t"];

fn function(name: &str) -> Option<Function> {
    use Function::{One, Two};
    Some(match name {
        "sin" => One(f64::sin),
        "cos" => One(f64::cos),
        "tan" => One(f64::tan),
        "asin" => One(f64::asin),
        "acos" => One(f64::acos),
        "atan" => One(f64::atan),
        "sinh" => One(f64::sinh),
        "cosh" => One(f64::cosh),
        "tanh" => One(f64::tanh),
        "exp" => One(f64::exp),
        "ln" | "log" => One(f64::ln),
        "sqrt" => One(f64::sqrt),
        "abs" => One(f64::abs),
        "floor" => One(f64::floor),
        "ceil" => One(f64::ceil),
        "atan2" => Two(f64::atan2),
        "min" => Two(f64::min),
        "max" => Two(f64::max),
        "pow" => Two(f64::powf),
        _ => return None,
    })
}

impl Expr {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let mut parser = Parser {
            text,
            chars: text.char_indices().collect(),
            at: 0,
        };
        let root = parser.sum()?;
        parser.skip_space();
        if parser.at < parser.chars.len() {
            return Err(parser.error("expected an operator or the end of the expression"));
        }
        Ok(Expr { root })
    }

    /// A constant expression.
    pub fn constant(value: f64) -> Expr {
        Expr {
            root: Node::Number(value),
        }
    }

    /// The value at position `p` (missing coordinates are 0) and time `t`.
    pub fn eval(&self, p: &[f64], t: f64) -> f64 {
        let mut vars = [0.0; 4];
        for (v, x) in vars.iter_mut().zip(p.iter().take(3)) {
            *v = *x;
        }
        vars[3] = t;
        self.root.eval(&vars)
    }

    /// Whether the expression depends on `t`.
    pub fn depends_on_time(&self) -> bool {
        self.root.uses(3)
    }
}

impl Node {
    fn eval(&self, vars: &[f64; 4]) -> f64 {
        match self {
            Node::Number(x) => *x,
            Node::Variable(k) => vars[*k],
            Node::Negate(a) => -a.eval(vars),
            Node::Binary(op, a, b) => {
                let (a, b) = (a.eval(vars), b.eval(vars));
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    _ => a.powf(b),
                }
            }
            Node::Call(Function::One(f), args) => f(args[0].eval(vars)),
            Node::Call(Function::Two(f), args) => f(args[0].eval(vars), args[1].eval(vars)),
        }
    }

    fn uses(&self, variable: usize) -> bool {
        match self {
            Node::Number(_) => false,
            Node::Variable(k) => *k == variable,
            Node::Negate(a) => a.uses(variable),
            Node::Binary(_, a, b) => a.uses(variable) || b.uses(variable),
            Node::Call(_, args) => args.iter().any(|a| a.uses(variable)),
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    chars: Vec<(usize, char)>,
    at: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ExprError {
        ExprError {
            text: self.text.to_string(),
            position: self.at,
            message: message.to_string(),
        }
    }

    fn skip_space(&mut self) {
        while self.at < self.chars.len() && self.chars[self.at].1.is_whitespace() {
            self.at += 1;
        }
    }

    /// The next non-space character, not consumed.
    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.chars.get(self.at).map(|c| c.1)
    }

    fn expect(&mut self, c: char) -> Result<(), ExprError> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{c}`")))
        }
    }

    fn sum(&mut self) -> Result<Node, ExprError> {
        let mut left = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.at += 1;
            left = Node::Binary(op, Box::new(left), Box::new(self.product()?));
        }
        Ok(left)
    }

    fn product(&mut self) -> Result<Node, ExprError> {
        let mut left = self.unary()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.at += 1;
            left = Node::Binary(op, Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        match self.peek() {
            Some('-') => {
                self.at += 1;
                Ok(Node::Negate(Box::new(self.unary()?)))
            }
            Some('+') => {
                self.at += 1;
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Node, ExprError> {
        let base = self.atom()?;
        if self.peek() == Some('^') {
            self.at += 1;
            return Ok(Node::Binary('^', Box::new(base), Box::new(self.unary()?)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Node, ExprError> {
        match self.peek() {
            Some('(') => {
                self.at += 1;
                let inner = self.sum()?;
                self.expect(')')?;
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => {
                let begin = self.at;
                while self.at < self.chars.len()
                    && (self.chars[self.at].1.is_alphanumeric() || self.chars[self.at].1 == '_')
                {
                    self.at += 1;
                }
                let name: String = self.chars[begin..self.at].iter().map(|c| c.1).collect();
                if let Some(k) = VARIABLES.iter().position(|v| *v == name) {
                    return Ok(Node::Variable(k));
                }
                match name.as_str() {
                    "pi" => return Ok(Node::Number(std::f64::consts::PI)),
                    "e" => return Ok(Node::Number(std::f64::consts::E)),
                    _ => {}
                }
                let Some(f) = function(&name) else {
                    self.at = begin;
                    return Err(self.error(&format!(
                        "unknown name `{name}`; expected x, y, z, t, pi, e or a function (sin, cos, exp, sqrt, …)"
                    )));
                };
                let arity = match f {
                    Function::One(_) => 1,
                    Function::Two(_) => 2,
                };
                self.expect('(')?;
                let mut args = vec![self.sum()?];
                while self.peek() == Some(',') {
                    self.at += 1;
                    args.push(self.sum()?);
                }
                if args.len() != arity {
                    self.at = begin;
                    return Err(self.error(&format!("`{name}` takes {arity} argument(s), got {}", args.len())));
                }
                self.expect(')')?;
                Ok(Node::Call(f, args))
            }
            Some(_) => Err(self.error("expected a number, a name or `(`")),
            None => Err(self.error("unexpected end of the expression")),
        }
    }

    fn number(&mut self) -> Result<Node, ExprError> {
        let begin = self.at;
        let digits = |p: &mut Self| {
            while p.at < p.chars.len() && p.chars[p.at].1.is_ascii_digit() {
                p.at += 1;
            }
        };
        digits(self);
        if self.at < self.chars.len() && self.chars[self.at].1 == '.' {
            self.at += 1;
            digits(self);
        }
        if self.at < self.chars.len() && matches!(self.chars[self.at].1, 'e' | 'E') {
            let mark = self.at;
            self.at += 1;
            if self.at < self.chars.len() && matches!(self.chars[self.at].1, '+' | '-') {
                self.at += 1;
            }
            let exponent = self.at;
            digits(self);
            if self.at == exponent {
                // `2e`: no exponent digits; the `e` is left to the caller (an error there).
                self.at = mark;
            }
        }
        let literal: String = self.chars[begin..self.at].iter().map(|c| c.1).collect();
        literal.parse::<f64>().map(Node::Number).map_err(|_| {
            self.at = begin;
            self.error(&format!("`{literal}` is not a number"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, p: &[f64], t: f64) -> f64 {
        Expr::parse(text).unwrap().eval(p, t)
    }

    #[test]
    fn precedence_and_values() {
        assert_eq!(value("1 + 2 * 3", &[], 0.0), 7.0);
        assert_eq!(value("-2^2", &[], 0.0), -4.0);
        assert_eq!(value("2^-1", &[], 0.0), 0.5);
        assert_eq!(value("2^3^2", &[], 0.0), 512.0);
        assert_eq!(value("1/2", &[], 0.0), 0.5);
        assert_eq!(value("8 / 4 / 2", &[], 0.0), 1.0);
        assert_eq!(value("1.5e2 + 2E-1", &[], 0.0), 150.2);
        let y = 0.1;
        let inflow = value("4*0.3*y*(0.41-y)/0.41^2", &[1.0, y], 0.0);
        assert!((inflow - 4.0 * 0.3 * y * (0.41 - y) / 0.41f64.powi(2)).abs() < 1e-15);
        assert!(
            (value("sin(pi*t/8) * max(x, z) + atan2(1, 1)", &[2.0, 0.0, 3.0], 4.0)
                - (3.0 + 0.25 * std::f64::consts::PI))
                .abs()
                < 1e-15
        );
        assert_eq!(value("2*e", &[], 0.0), 2.0 * std::f64::consts::E);
        assert!(Expr::parse("2e").is_err());
        assert!(Expr::parse("t*x").unwrap().depends_on_time());
        assert!(!Expr::parse("x*y").unwrap().depends_on_time());
    }

    #[test]
    fn errors_say_where() {
        let e = Expr::parse("1 + foo(2)").unwrap_err();
        assert_eq!(e.position, 4);
        assert!(e.message.contains("unknown name `foo`"));
        assert_eq!(Expr::parse("(1 + 2").unwrap_err().message, "expected `)`");
        assert_eq!(Expr::parse("1 +").unwrap_err().position, 3);
        assert!(Expr::parse("1 2").unwrap_err().message.contains("expected an operator"));
        assert!(Expr::parse("max(1)")
            .unwrap_err()
            .message
            .contains("takes 2 argument(s), got 1"));
        assert!(Expr::parse("").is_err());
        assert!(Expr::parse("1 # 2").is_err());
    }
}
