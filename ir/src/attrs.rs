//! StableHLO attribute syntax, parsed once for the passes and the runtime.
//!
//! Unregistered StableHLO ops keep `#stablehlo.*` attributes opaque: their
//! text is all there is. This module reads the structured ones that both
//! the passes and the replay runtime need: integer fields
//! (`lhs_batching_dimensions = [0]`, `index_vector_dim = 1`), the
//! dimension numbers of `dot_general` ([`DotDimensions`]) and of
//! `convolution` ([`ConvDimensions`], short and `raw` forms).
//!
//! A missing list field is the empty list (StableHLO's default); a present
//! but malformed field, or dimension numbers that do not parse, is an
//! [`AttrError`] quoting the text.

/// A structured attribute whose text does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {what}: `{text}`")]
pub struct AttrError {
    /// What was being read (`dot dimension numbers`, ...).
    pub what: &'static str,
    /// The text concerned.
    pub text: String,
}

fn field_error(name: &str, text: &str) -> AttrError {
    AttrError {
        what: "structured attribute field",
        text: format!("{name} in {text}"),
    }
}

/// Position of `key` as a whole field name (not the tail of a longer name).
fn find_field(text: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(key) {
        let at = from + found;
        let before = text[..at].chars().next_back();
        if before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_')) {
            return Some(at);
        }
        from = at + key.len();
    }
    None
}

/// The integer list field `name = [1, 2]` inside a structured attribute
/// such as `#stablehlo.dot<lhs_batching_dimensions = [0], ...>`; a missing
/// field is the empty list.
pub fn list_field(text: &str, name: &str) -> Result<Vec<i64>, AttrError> {
    let key = format!("{name} = [");
    let Some(start) = find_field(text, &key) else {
        return Ok(Vec::new());
    };
    let rest = &text[start + key.len()..];
    let end = rest.find(']').ok_or_else(|| field_error(name, text))?;
    let body = rest[..end].trim();
    if body.is_empty() {
        return Ok(Vec::new());
    }
    body.split(',')
        .map(|item| {
            item.trim()
                .parse::<i64>()
                .map_err(|_| field_error(name, text))
        })
        .collect()
}

/// The integer field `name = 3` inside a structured attribute (missing:
/// `None`).
pub fn int_field(text: &str, name: &str) -> Result<Option<i64>, AttrError> {
    let key = format!("{name} = ");
    let Some(start) = find_field(text, &key) else {
        return Ok(None);
    };
    let rest = &text[start + key.len()..];
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits
        .parse()
        .map(Some)
        .map_err(|_| field_error(name, text))
}

/// A list field of dimension indices (non-negative).
fn dims_field(text: &str, name: &str, what: &'static str) -> Result<Vec<usize>, AttrError> {
    list_field(text, name)?
        .into_iter()
        .map(|d| {
            usize::try_from(d).map_err(|_| AttrError {
                what,
                text: text.to_owned(),
            })
        })
        .collect()
}

/// The dimension numbers of `dot_general`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DotDimensions {
    /// Batch dimensions of the lhs.
    pub lhs_batching: Vec<usize>,
    /// Batch dimensions of the rhs, paired with `lhs_batching`.
    pub rhs_batching: Vec<usize>,
    /// Contracting dimensions of the lhs.
    pub lhs_contracting: Vec<usize>,
    /// Contracting dimensions of the rhs, paired with `lhs_contracting`.
    pub rhs_contracting: Vec<usize>,
}

impl DotDimensions {
    /// Reads `#stablehlo.dot<lhs_batching_dimensions = [0], ...>` (missing
    /// fields are empty lists).
    pub fn parse(text: &str) -> Result<Self, AttrError> {
        const WHAT: &str = "dot dimension numbers";
        let text = text.trim();
        if !(text.starts_with("#stablehlo.dot<") && text.ends_with('>')) {
            return Err(AttrError {
                what: WHAT,
                text: text.to_owned(),
            });
        }
        Ok(Self {
            lhs_batching: dims_field(text, "lhs_batching_dimensions", WHAT)?,
            rhs_batching: dims_field(text, "rhs_batching_dimensions", WHAT)?,
            lhs_contracting: dims_field(text, "lhs_contracting_dimensions", WHAT)?,
            rhs_contracting: dims_field(text, "rhs_contracting_dimensions", WHAT)?,
        })
    }
}

/// Where the batch, feature and spatial dimensions of one convolution
/// operand (or of its result) are. For the kernel, `batch` is its input
/// feature dimension and `feature` its output feature dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvLayout {
    /// The batch dimension (kernel: input feature).
    pub batch: usize,
    /// The feature dimension (kernel: output feature).
    pub feature: usize,
    /// `spatial[k]` is the dimension of spatial dimension `k`.
    pub spatial: Vec<usize>,
}

/// The dimension numbers of `convolution`: where batch, feature and spatial
/// dimensions sit in each of input, kernel and output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvDimensions {
    /// Input batch dimension.
    pub input_batch: usize,
    /// Input feature dimension.
    pub input_feature: usize,
    /// Input spatial dimensions, spatial dimension 0 first.
    pub input_spatial: Vec<usize>,
    /// Kernel input feature dimension.
    pub kernel_input_feature: usize,
    /// Kernel output feature dimension.
    pub kernel_output_feature: usize,
    /// Kernel spatial dimensions.
    pub kernel_spatial: Vec<usize>,
    /// Output batch dimension.
    pub output_batch: usize,
    /// Output feature dimension.
    pub output_feature: usize,
    /// Output spatial dimensions.
    pub output_spatial: Vec<usize>,
}

/// One layout `[b, 0, 1, f]`: the positions of the two letters and of each
/// spatial dimension; every letter once, spatial dimensions `0..n-2` once
/// each.
fn parse_layout(text: &str, first: &str, second: &str) -> Option<ConvLayout> {
    let items: Vec<&str> = text
        .trim()
        .strip_prefix('[')?
        .strip_suffix(']')?
        .split(',')
        .map(str::trim)
        .collect();
    let position = |letter: &str| {
        let mut found = items.iter().enumerate().filter(|(_, &i)| i == letter);
        let (at, _) = found.next()?;
        found.next().is_none().then_some(at)
    };
    let (batch, feature) = (position(first)?, position(second)?);
    let spatial_count = items.len().checked_sub(2)?;
    let mut spatial = vec![usize::MAX; spatial_count];
    for (at, item) in items.iter().enumerate() {
        if at == batch || at == feature {
            continue;
        }
        let d: usize = item.parse().ok()?;
        if d >= spatial_count || spatial[d] != usize::MAX {
            return None;
        }
        spatial[d] = at;
    }
    Some(ConvLayout {
        batch,
        feature,
        spatial,
    })
}

impl ConvDimensions {
    /// Reads `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` or
    /// the `#stablehlo.conv<raw input_batch_dimension = 0, ...>` form.
    pub fn parse(text: &str) -> Result<Self, AttrError> {
        let malformed = || AttrError {
            what: "convolution dimension numbers",
            text: text.to_owned(),
        };
        let body = text
            .trim()
            .strip_prefix("#stablehlo.conv<")
            .and_then(|b| b.strip_suffix('>'))
            .ok_or_else(malformed)?
            .trim();
        if body.starts_with("raw") {
            let index = |name: &str| -> Result<usize, AttrError> {
                int_field(body, name)?
                    .and_then(|v| usize::try_from(v).ok())
                    .ok_or_else(malformed)
            };
            let list = |name: &str| dims_field(body, name, "convolution dimension numbers");
            return Ok(Self {
                input_batch: index("input_batch_dimension")?,
                input_feature: index("input_feature_dimension")?,
                input_spatial: list("input_spatial_dimensions")?,
                kernel_input_feature: index("kernel_input_feature_dimension")?,
                kernel_output_feature: index("kernel_output_feature_dimension")?,
                kernel_spatial: list("kernel_spatial_dimensions")?,
                output_batch: index("output_batch_dimension")?,
                output_feature: index("output_feature_dimension")?,
                output_spatial: list("output_spatial_dimensions")?,
            });
        }
        let (operands, output) = body.split_once("->").ok_or_else(malformed)?;
        let split = operands.find("]x[").ok_or_else(malformed)?;
        let (input, kernel) = (&operands[..=split], &operands[split + 2..]);
        let input = parse_layout(input, "b", "f").ok_or_else(malformed)?;
        let kernel = parse_layout(kernel, "i", "o").ok_or_else(malformed)?;
        let output = parse_layout(output, "b", "f").ok_or_else(malformed)?;
        Ok(Self {
            input_batch: input.batch,
            input_feature: input.feature,
            input_spatial: input.spatial,
            kernel_input_feature: kernel.batch,
            kernel_output_feature: kernel.feature,
            kernel_spatial: kernel.spatial,
            output_batch: output.batch,
            output_feature: output.feature,
            output_spatial: output.spatial,
        })
    }

    /// The input's layout.
    pub fn input(&self) -> ConvLayout {
        ConvLayout {
            batch: self.input_batch,
            feature: self.input_feature,
            spatial: self.input_spatial.clone(),
        }
    }

    /// The kernel's layout (`batch`: input feature, `feature`: output
    /// feature).
    pub fn kernel(&self) -> ConvLayout {
        ConvLayout {
            batch: self.kernel_input_feature,
            feature: self.kernel_output_feature,
            spatial: self.kernel_spatial.clone(),
        }
    }

    /// The output's layout.
    pub fn output(&self) -> ConvLayout {
        ConvLayout {
            batch: self.output_batch,
            feature: self.output_feature,
            spatial: self.output_spatial.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let dot = "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], \
                   lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>";
        assert_eq!(list_field(dot, "rhs_contracting_dimensions").unwrap(), [1]);
        // `batching_dimensions` is the tail of other names only.
        assert!(list_field(dot, "batching_dimensions").unwrap().is_empty());
        assert!(list_field("x = [1, y]", "x").is_err());
        assert_eq!(int_field("a = 3, b = -1", "b").unwrap(), Some(-1));
        assert_eq!(int_field("a = 3", "c").unwrap(), None);
        let numbers = DotDimensions::parse(dot).unwrap();
        assert_eq!(numbers.lhs_batching, [0]);
        assert_eq!(numbers.lhs_contracting, [2]);
        assert!(DotDimensions::parse("#stablehlo.conv<>").is_err());
        assert!(DotDimensions::parse("#stablehlo.dot<lhs_contracting_dimensions = [-1]>").is_err());
        assert_eq!(
            DotDimensions::parse("#stablehlo.dot<>").unwrap(),
            DotDimensions::default()
        );
    }

    #[test]
    fn conv_dimension_numbers_parse() {
        let d = ConvDimensions::parse("#stablehlo.conv<[b, 0, f, 1]x[0, i, 1, o]->[f, 1, 0, b]>")
            .unwrap();
        assert_eq!(
            (d.input_batch, d.input_feature, d.input_spatial.clone()),
            (0, 2, vec![1, 3])
        );
        assert_eq!(
            (
                d.kernel_input_feature,
                d.kernel_output_feature,
                d.kernel_spatial.clone()
            ),
            (1, 3, vec![0, 2])
        );
        assert_eq!(
            (d.output_batch, d.output_feature, d.output_spatial.clone()),
            (3, 0, vec![2, 1])
        );
        let raw = ConvDimensions::parse(
            "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, \
             input_spatial_dimensions = [1, 3], kernel_input_feature_dimension = 1, \
             kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 2], \
             output_batch_dimension = 3, output_feature_dimension = 0, \
             output_spatial_dimensions = [2, 1]>",
        )
        .unwrap();
        assert_eq!(raw, d);
        assert_eq!(
            d.kernel(),
            ConvLayout {
                batch: 1,
                feature: 3,
                spatial: vec![0, 2]
            }
        );
        for bad in [
            "#stablehlo.conv<[b, 0, f]x[0, i, o]>",
            "#stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>",
            "#stablehlo.conv<[b, 0, 2, f]x[0, 1, i, o]->[b, 0, 1, f]>",
            "#stablehlo.conv<[b, 0, f]x[0, i, i]->[b, 0, f]>",
            "conv",
        ] {
            assert!(ConvDimensions::parse(bad).is_err(), "{bad}");
        }
    }
}
