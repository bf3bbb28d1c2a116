//! Evaluation of a parsed [`Expr`], with pgbench 15's NULL, integer and double semantics
//! (`evalLazyFunc` and `evalStandardFunc` in pgbench.c).

use crate::Rng;

use super::expr::{Expr, Func};
use super::random;
use super::value::{EvalError, Value, fail};

/// Where an evaluation reads its variables: `None` for a variable that is not set.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<Value>;

impl Expr {
    /// The expression's value, its variables read from `vars` and its random draws from `rng`.
    pub fn eval(&self, vars: Lookup<'_>, rng: &mut Rng) -> Result<Value, EvalError> {
        match self {
            Expr::Const(v) => Ok(*v),
            Expr::Var(name) => vars(name).map_or_else(|| fail(format!("undefined variable \"{name}\"")), Ok),
            Expr::Case(arms, default) => {
                for (cond, value) in arms {
                    if cond.eval(vars, rng)?.truth() {
                        return value.eval(vars, rng);
                    }
                }
                default.eval(vars, rng)
            }
            Expr::Call(Func::And, args) => {
                let a = args[0].eval(vars, rng)?;
                if a == Value::Null {
                    return Ok(Value::Null);
                }
                if !a.to_bool()? {
                    return Ok(Value::Bool(false));
                }
                let b = args[1].eval(vars, rng)?;
                if b == Value::Null { Ok(Value::Null) } else { Ok(Value::Bool(b.to_bool()?)) }
            }
            Expr::Call(Func::Or, args) => {
                let a = args[0].eval(vars, rng)?;
                if a == Value::Null {
                    return Ok(Value::Null);
                }
                if a.to_bool()? {
                    return Ok(Value::Bool(true));
                }
                let b = args[1].eval(vars, rng)?;
                if b == Value::Null { Ok(Value::Null) } else { Ok(Value::Bool(b.to_bool()?)) }
            }
            Expr::Call(f, args) => {
                let values = args.iter().map(|a| a.eval(vars, rng)).collect::<Result<Vec<_>, _>>()?;
                apply(*f, &values, rng)
            }
        }
    }
}

fn overflow<T>() -> Result<T, EvalError> {
    fail("bigint out of range")
}

/// A function whose arguments are all evaluated: NULL in, NULL out (but for `IS` and `debug`).
fn apply(f: Func, v: &[Value], rng: &mut Rng) -> Result<Value, EvalError> {
    if !matches!(f, Func::Is | Func::Debug) && v.contains(&Value::Null) {
        return Ok(Value::Null);
    }
    let doubles = v.iter().any(|x| matches!(x, Value::Double(_)));
    Ok(match f {
        Func::Add | Func::Sub | Func::Mul | Func::Div | Func::Eq | Func::Ne | Func::Le | Func::Lt => {
            if doubles {
                let (a, b) = (v[0].to_double()?, v[1].to_double()?);
                match f {
                    Func::Add => Value::Double(a + b),
                    Func::Sub => Value::Double(a - b),
                    Func::Mul => Value::Double(a * b),
                    Func::Div => Value::Double(a / b),
                    Func::Eq => Value::Bool(a == b),
                    Func::Ne => Value::Bool(a != b),
                    Func::Le => Value::Bool(a <= b),
                    _ => Value::Bool(a < b),
                }
            } else {
                let (a, b) = (v[0].to_int()?, v[1].to_int()?);
                match f {
                    Func::Add => Value::Int(a.checked_add(b).map_or_else(overflow, Ok)?),
                    Func::Sub => Value::Int(a.checked_sub(b).map_or_else(overflow, Ok)?),
                    Func::Mul => Value::Int(a.checked_mul(b).map_or_else(overflow, Ok)?),
                    Func::Div if b == 0 => return fail("division by zero"),
                    Func::Div => Value::Int(a.checked_div(b).map_or_else(overflow, Ok)?),
                    Func::Eq => Value::Bool(a == b),
                    Func::Ne => Value::Bool(a != b),
                    Func::Le => Value::Bool(a <= b),
                    _ => Value::Bool(a < b),
                }
            }
        }
        Func::Mod => {
            let (a, b) = (v[0].to_int()?, v[1].to_int()?);
            match b {
                0 => return fail("division by zero"),
                -1 => Value::Int(0),
                _ => Value::Int(a % b),
            }
        }
        Func::Is => Value::Bool(match (v[0], v[1]) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        }),
        Func::Not => Value::Bool(!v[0].to_bool()?),
        Func::And | Func::Or => unreachable!("evaluated lazily"),
        Func::BitAnd => Value::Int(v[0].to_int()? & v[1].to_int()?),
        Func::BitOr => Value::Int(v[0].to_int()? | v[1].to_int()?),
        Func::BitXor => Value::Int(v[0].to_int()? ^ v[1].to_int()?),
        Func::Shl => Value::Int(v[0].to_int()?.wrapping_shl(v[1].to_int()? as u32)),
        Func::Shr => Value::Int(v[0].to_int()?.wrapping_shr(v[1].to_int()? as u32)),
        Func::Abs => match v[0] {
            Value::Double(d) => Value::Double(d.abs()),
            x => Value::Int(x.to_int()?.wrapping_abs()),
        },
        Func::Debug => {
            eprintln!("debug: {}", v[0]);
            v[0]
        }
        Func::Double => Value::Double(v[0].to_double()?),
        Func::Int => Value::Int(v[0].to_int()?),
        Func::Exp => Value::Double(v[0].to_double()?.exp()),
        Func::Ln => Value::Double(v[0].to_double()?.ln()),
        Func::Sqrt => Value::Double(v[0].to_double()?.sqrt()),
        Func::Pow => Value::Double(v[0].to_double()?.powf(v[1].to_double()?)),
        Func::Pi => Value::Double(std::f64::consts::PI),
        Func::Greatest | Func::Least => {
            let greatest = f == Func::Greatest;
            if doubles {
                let mut best = v[0].to_double()?;
                for x in &v[1..] {
                    let x = x.to_double()?;
                    if (greatest && x > best) || (!greatest && x < best) {
                        best = x;
                    }
                }
                Value::Double(best)
            } else {
                let mut best = v[0].to_int()?;
                for x in &v[1..] {
                    let x = x.to_int()?;
                    best = if greatest { best.max(x) } else { best.min(x) };
                }
                Value::Int(best)
            }
        }
        Func::Random => Value::Int(random::uniform(rng, v[0].to_int()?, v[1].to_int()?)?),
        Func::RandomExponential => {
            Value::Int(random::exponential(rng, v[0].to_int()?, v[1].to_int()?, v[2].to_double()?)?)
        }
        Func::RandomGaussian => {
            Value::Int(random::gaussian(rng, v[0].to_int()?, v[1].to_int()?, v[2].to_double()?)?)
        }
        Func::RandomZipfian => {
            Value::Int(random::zipfian(rng, v[0].to_int()?, v[1].to_int()?, v[2].to_double()?)?)
        }
        Func::HashFnv1a => Value::Int(random::fnv1a(v[0].to_int()?, v[1].to_int()?)),
        Func::HashMurmur2 => Value::Int(random::murmur2(v[0].to_int()?, v[1].to_int()?)),
        Func::Permute => Value::Int(random::permute(v[0].to_int()?, v[1].to_int()?, v[2].to_int()?)?),
    })
}
