//! pgbench's expression syntax (PostgreSQL 15's `exprscan.l` and `exprparse.y`): the lexer and a
//! precedence-climbing parser that build an [`Expr`] once, when a script is read.

use std::fmt;

use super::value::Value;

/// An operator or function of pgbench's expressions, after the parser's rewrites (`a > b` is
/// `b < a`, `-a` is `0 - a`, `~a` is `-1 # a`, `hash(a)` is `hash_murmur2(a, :default_seed)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%` and `mod()`
    Mod,
    /// `=`
    Eq,
    /// `<>` and `!=`
    Ne,
    /// `<=` (and `>=` with its operands swapped)
    Le,
    /// `<` (and `>` with its operands swapped)
    Lt,
    /// `IS` (NULL, TRUE, FALSE)
    Is,
    /// `AND`, evaluated lazily
    And,
    /// `OR`, evaluated lazily
    Or,
    /// `NOT`
    Not,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `#` (and `~` as `-1 # a`)
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `abs()`
    Abs,
    /// `debug()`: prints its argument to stderr and returns it
    Debug,
    /// `double()`
    Double,
    /// `int()`
    Int,
    /// `exp()`
    Exp,
    /// `ln()`
    Ln,
    /// `sqrt()`
    Sqrt,
    /// `pow()` and `power()`
    Pow,
    /// `greatest()`
    Greatest,
    /// `least()`
    Least,
    /// `pi()`
    Pi,
    /// `random(lb, ub)`
    Random,
    /// `random_exponential(lb, ub, parameter)`
    RandomExponential,
    /// `random_gaussian(lb, ub, parameter)`
    RandomGaussian,
    /// `random_zipfian(lb, ub, parameter)`
    RandomZipfian,
    /// `hash_fnv1a(v [, seed])`
    HashFnv1a,
    /// `hash(v [, seed])` and `hash_murmur2(v [, seed])`
    HashMurmur2,
    /// `permute(i, size [, seed])`
    Permute,
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal (`1`, `2.5`, `true`, `null`).
    Const(Value),
    /// `:name`, read from the variables when evaluated.
    Var(String),
    /// An operator or function applied to its arguments.
    Call(Func, Vec<Expr>),
    /// `CASE WHEN c THEN v ... [ELSE d] END` (a missing ELSE is NULL).
    Case(Vec<(Expr, Expr)>, Box<Expr>),
}

/// Why an expression could not be parsed: the message pgbench would give, and the byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Where in the expression's text (bytes).
    pub at: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at column {}", self.message, self.at + 1)
    }
}

impl std::error::Error for ParseError {}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    /// 9223372036854775808, only valid after a unary minus.
    MaxPlusOne,
    Double(f64),
    Word(String),
    Var(String),
    Op(&'static str),
}

/// The characters of a variable's name (letters, digits, `_`, and any non-ASCII character, as pgbench).
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii()
}

const OPS: [&str; 21] = [
    "<<", ">>", "<=", ">=", "<>", "!=", "+", "-", "*", "/", "%", "&", "|", "#", "~", "<", ">", "=", "(", ")",
    ",",
];

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = text[i..].chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        if c == ':' {
            let name: String = text[i + 1..].chars().take_while(|&c| is_name_char(c)).collect();
            if name.is_empty() {
                return Err(ParseError { message: "unexpected character \":\"".into(), at: i });
            }
            i += 1 + name.len();
            out.push((Tok::Var(name), start));
        } else if c.is_ascii_digit() || (c == '.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let mut double = false;
            if j < b.len() && b[j] == b'.' {
                double = true;
                j += 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                let mut k = j + 1;
                if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                    k += 1;
                }
                if k < b.len() && b[k].is_ascii_digit() {
                    double = true;
                    j = k;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                }
            }
            let lit = &text[i..j];
            let tok = if double {
                Tok::Double(
                    lit.parse()
                        .map_err(|_| ParseError { message: format!("invalid double \"{lit}\""), at: i })?,
                )
            } else if lit.trim_start_matches('0') == "9223372036854775808" {
                Tok::MaxPlusOne
            } else {
                Tok::Int(lit.parse().map_err(|_| ParseError {
                    message: format!("bigint constant overflow \"{lit}\""),
                    at: i,
                })?)
            };
            i = j;
            out.push((tok, start));
        } else if c.is_alphabetic() || c == '_' {
            let word: String = text[i..].chars().take_while(|&c| is_name_char(c)).collect();
            i += word.len();
            out.push((Tok::Word(word.to_ascii_lowercase()), start));
        } else if let Some(op) = OPS.iter().find(|op| text[i..].starts_with(**op)) {
            i += op.len();
            out.push((Tok::Op(op), start));
        } else {
            return Err(ParseError { message: format!("unexpected character \"{c}\""), at: i });
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
}

fn call(f: Func, args: Vec<Expr>) -> Expr {
    Expr::Call(f, args)
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(_, a)| *a)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError { message: message.into(), at: self.at() })
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let yes = self.is_op(op);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn expect_op(&mut self, op: &str) -> Result<(), ParseError> {
        if self.eat_op(op) { Ok(()) } else { self.err(format!("syntax error: \"{op}\" expected")) }
    }

    /// `a OR b` (right-associative, the loosest).
    fn or(&mut self) -> Result<Expr, ParseError> {
        let left = self.and()?;
        if self.eat_word("or") { Ok(call(Func::Or, vec![left, self.or()?])) } else { Ok(left) }
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let left = self.not()?;
        if self.eat_word("and") { Ok(call(Func::And, vec![left, self.and()?])) } else { Ok(left) }
    }

    fn not(&mut self) -> Result<Expr, ParseError> {
        if self.eat_word("not") { Ok(call(Func::Not, vec![self.not()?])) } else { self.is() }
    }

    /// `IS [NOT] NULL|TRUE|FALSE`, `ISNULL`, `NOTNULL` (non-associative).
    fn is(&mut self) -> Result<Expr, ParseError> {
        let left = self.comparison()?;
        if self.eat_word("isnull") {
            return Ok(call(Func::Is, vec![left, Expr::Const(Value::Null)]));
        }
        if self.eat_word("notnull") {
            return Ok(call(Func::Not, vec![call(Func::Is, vec![left, Expr::Const(Value::Null)])]));
        }
        if !self.eat_word("is") {
            return Ok(left);
        }
        let negated = self.eat_word("not");
        let what = if self.eat_word("null") {
            Value::Null
        } else if self.eat_word("true") {
            Value::Bool(true)
        } else if self.eat_word("false") {
            Value::Bool(false)
        } else {
            return self.err("syntax error: NULL, TRUE or FALSE expected after IS");
        };
        let is = call(Func::Is, vec![left, Expr::Const(what)]);
        Ok(if negated { call(Func::Not, vec![is]) } else { is })
    }

    fn comparison(&mut self) -> Result<Expr, ParseError> {
        let left = self.bits()?;
        let (f, swap) = match self.peek() {
            Some(Tok::Op("=")) => (Func::Eq, false),
            Some(Tok::Op("<>" | "!=")) => (Func::Ne, false),
            Some(Tok::Op("<")) => (Func::Lt, false),
            Some(Tok::Op("<=")) => (Func::Le, false),
            Some(Tok::Op(">")) => (Func::Lt, true),
            Some(Tok::Op(">=")) => (Func::Le, true),
            _ => return Ok(left),
        };
        self.pos += 1;
        let right = self.bits()?;
        Ok(call(f, if swap { vec![right, left] } else { vec![left, right] }))
    }

    fn bits(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.additive()?;
        loop {
            let f = match self.peek() {
                Some(Tok::Op("&")) => Func::BitAnd,
                Some(Tok::Op("|")) => Func::BitOr,
                Some(Tok::Op("#")) => Func::BitXor,
                Some(Tok::Op("<<")) => Func::Shl,
                Some(Tok::Op(">>")) => Func::Shr,
                _ => return Ok(left),
            };
            self.pos += 1;
            left = call(f, vec![left, self.additive()?]);
        }
    }

    fn additive(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.multiplicative()?;
        loop {
            let f = match self.peek() {
                Some(Tok::Op("+")) => Func::Add,
                Some(Tok::Op("-")) => Func::Sub,
                _ => return Ok(left),
            };
            self.pos += 1;
            left = call(f, vec![left, self.multiplicative()?]);
        }
    }

    fn multiplicative(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        loop {
            let f = match self.peek() {
                Some(Tok::Op("*")) => Func::Mul,
                Some(Tok::Op("/")) => Func::Div,
                Some(Tok::Op("%")) => Func::Mod,
                _ => return Ok(left),
            };
            self.pos += 1;
            left = call(f, vec![left, self.unary()?]);
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if self.eat_op("+") {
            return self.unary();
        }
        if self.eat_op("-") {
            if matches!(self.peek(), Some(Tok::MaxPlusOne)) {
                self.pos += 1;
                return Ok(Expr::Const(Value::Int(i64::MIN)));
            }
            return Ok(call(Func::Sub, vec![Expr::Const(Value::Int(0)), self.unary()?]));
        }
        if self.eat_op("~") {
            return Ok(call(Func::BitXor, vec![Expr::Const(Value::Int(-1)), self.unary()?]));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let Some(tok) = self.peek().cloned() else {
            return self.err("syntax error: unexpected end of expression");
        };
        let at = self.at();
        self.pos += 1;
        match tok {
            Tok::Int(i) => Ok(Expr::Const(Value::Int(i))),
            Tok::MaxPlusOne => Err(ParseError { message: "bigint constant overflow".into(), at }),
            Tok::Double(d) => Ok(Expr::Const(Value::Double(d))),
            Tok::Var(v) => Ok(Expr::Var(v)),
            Tok::Op("(") => {
                let e = self.or()?;
                self.expect_op(")")?;
                Ok(e)
            }
            Tok::Word(w) => match w.as_str() {
                "true" => Ok(Expr::Const(Value::Bool(true))),
                "false" => Ok(Expr::Const(Value::Bool(false))),
                "null" => Ok(Expr::Const(Value::Null)),
                "case" => self.case(),
                _ => self.function(&w, at),
            },
            Tok::Op(op) => Err(ParseError { message: format!("syntax error at \"{op}\""), at }),
        }
    }

    fn case(&mut self) -> Result<Expr, ParseError> {
        let mut arms = Vec::new();
        while self.eat_word("when") {
            let cond = self.or()?;
            if !self.eat_word("then") {
                return self.err("syntax error: THEN expected");
            }
            arms.push((cond, self.or()?));
        }
        if arms.is_empty() {
            return self.err("syntax error: WHEN expected after CASE");
        }
        let default = if self.eat_word("else") { self.or()? } else { Expr::Const(Value::Null) };
        if !self.eat_word("end") {
            return self.err("syntax error: END expected");
        }
        Ok(Expr::Case(arms, Box::new(default)))
    }

    fn function(&mut self, name: &str, at: usize) -> Result<Expr, ParseError> {
        let Some(&(_, f, min, max)) = FUNCTIONS.iter().find(|(n, ..)| *n == name) else {
            return Err(ParseError { message: format!("unexpected function name \"{name}\""), at });
        };
        self.expect_op("(")?;
        let mut args = Vec::new();
        if !self.eat_op(")") {
            loop {
                args.push(self.or()?);
                if self.eat_op(")") {
                    break;
                }
                self.expect_op(",")?;
            }
        }
        if args.len() < min || args.len() > max {
            return Err(ParseError { message: format!("unexpected number of arguments ({name})"), at });
        }
        // The seed defaults to :default_seed, as pgbench's parser adds it.
        if matches!(f, Func::HashFnv1a | Func::HashMurmur2 | Func::Permute) && args.len() < max {
            args.push(Expr::Var("default_seed".into()));
        }
        Ok(call(f, args))
    }
}

/// Every function by name, with its least and most arguments.
const FUNCTIONS: [(&str, Func, usize, usize); 21] = [
    ("abs", Func::Abs, 1, 1),
    ("debug", Func::Debug, 1, 1),
    ("double", Func::Double, 1, 1),
    ("int", Func::Int, 1, 1),
    ("exp", Func::Exp, 1, 1),
    ("ln", Func::Ln, 1, 1),
    ("sqrt", Func::Sqrt, 1, 1),
    ("pow", Func::Pow, 2, 2),
    ("power", Func::Pow, 2, 2),
    ("mod", Func::Mod, 2, 2),
    ("greatest", Func::Greatest, 1, usize::MAX),
    ("least", Func::Least, 1, usize::MAX),
    ("pi", Func::Pi, 0, 0),
    ("random", Func::Random, 2, 2),
    ("random_exponential", Func::RandomExponential, 3, 3),
    ("random_gaussian", Func::RandomGaussian, 3, 3),
    ("random_zipfian", Func::RandomZipfian, 3, 3),
    ("hash", Func::HashMurmur2, 1, 2),
    ("hash_murmur2", Func::HashMurmur2, 1, 2),
    ("hash_fnv1a", Func::HashFnv1a, 1, 2),
    ("permute", Func::Permute, 2, 3),
];

impl Expr {
    /// Parses one expression as `\set` and `\if` take it.
    pub fn parse(text: &str) -> Result<Expr, ParseError> {
        let toks = lex(text)?;
        if toks.is_empty() {
            return Err(ParseError { message: "missing expression".into(), at: 0 });
        }
        let mut p = Parser { toks, pos: 0, end: text.len() };
        let e = p.or()?;
        if p.pos < p.toks.len() {
            return p.err("syntax error: unexpected text after the expression");
        }
        Ok(e)
    }

    /// The variables the expression reads, each once, in order of appearance.
    pub fn variables(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Const(_) => {}
            Expr::Var(v) => {
                if !out.contains(&v.as_str()) {
                    out.push(v);
                }
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_vars(out)),
            Expr::Case(arms, default) => {
                for (c, v) in arms {
                    c.collect_vars(out);
                    v.collect_vars(out);
                }
                default.collect_vars(out);
            }
        }
    }
}
