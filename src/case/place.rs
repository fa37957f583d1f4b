//! Where a key is in a case file: the line of `bodies[2].shape.radius`, found in the text again
//! (toml's spanned document) only when an error is reported, so that value errors point at the
//! line to change as parse errors do.

use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// The 1-based line of `field` (keys separated by `.`, array indices in brackets) in `text`, or of
/// the deepest part of it the file has (the table, when the key is left to its default); `None`
/// when not even the first part is in the file.
pub(crate) fn line_of(text: &str, field: &str) -> Option<usize> {
    let doc = DeTable::parse(text).ok()?;
    let mut at: Option<usize> = None;
    let mut value: Option<&Spanned<DeValue<'_>>> = None;
    'walk: for part in field.split('.') {
        let (key, indices) = part.split_once('[').map_or((part, ""), |(k, rest)| (k, rest));
        let table = match value.map(Spanned::get_ref) {
            None => doc.get_ref(),
            Some(DeValue::Table(t)) => t,
            Some(_) => break,
        };
        let Some((name, v)) = table.iter().find(|(name, _)| name.get_ref().as_ref() == key) else {
            break;
        };
        at = Some(name.span().start);
        value = Some(v);
        for index in indices
            .split('[')
            .map(|s| s.trim_end_matches(']'))
            .filter(|s| !s.is_empty())
        {
            let element = match (value.map(Spanned::get_ref), index.parse::<usize>()) {
                (Some(DeValue::Array(a)), Ok(i)) => a.get(i),
                _ => None,
            };
            let Some(element) = element else {
                break 'walk;
            };
            at = Some(element.span().start);
            value = Some(element);
        }
    }
    at.map(|offset| {
        1 + text.as_bytes()[..offset.min(text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    })
}

#[cfg(test)]
mod tests {
    use super::line_of;

    const TEXT: &str = "dimension = 2\n\
        [domain]\n\
        box = [[0, 0],\n       [2, 2]]\n\
        [[bodies]]\n\
        shape = { type = \"circle\", radius = 0.1 }\n\
        density = 1\n\
        [[bodies]]\n\
        density = -1\n\
        shape = { type = \"circle\",\n  radius = -2 }\n";

    #[test]
    fn keys_indices_and_defaults_find_their_lines() {
        assert_eq!(line_of(TEXT, "dimension"), Some(1));
        assert_eq!(line_of(TEXT, "domain.box[1]"), Some(4));
        assert_eq!(line_of(TEXT, "bodies[0].shape.radius"), Some(6));
        assert_eq!(line_of(TEXT, "bodies[1].density"), Some(9));
        assert_eq!(line_of(TEXT, "bodies[1].shape.radius"), Some(11));
        // A key left to its default: the line of its table.
        assert_eq!(line_of(TEXT, "domain.h"), Some(2));
        assert_eq!(line_of(TEXT, "contact.range"), None);
    }
}
