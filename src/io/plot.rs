//! PNG line plots of time series (`plotters`, bitmap backend), for the quantities a run reports
//! against time: positions, velocities, angles. The font is DejaVu Sans, embedded (its licence is
//! `assets/DejaVuSans.LICENSE`), so that no system font library is needed.

use super::OutputError;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::Path;
use std::sync::Once;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// One curve: a name for the legend and its points `(t, value)`.
pub struct Curve {
    /// The legend's text.
    pub name: String,
    /// The points.
    pub points: Vec<(f64, f64)>,
}

/// Writes a 900 × 600 PNG at `path` with `curves` against time, whole (drawn into a temporary
/// `.<name>.tmp.png` next to it, then renamed).
pub fn plot_curves(path: &Path, title: &str, y_label: &str, curves: &[Curve]) -> Result<(), OutputError> {
    plot_xy(path, title, "time", y_label, curves)
}

/// [`plot_curves`] with the abscissa named `x_label`.
pub fn plot_xy(path: &Path, title: &str, x_label: &str, y_label: &str, curves: &[Curve]) -> Result<(), OutputError> {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The font is a valid TTF compiled in: registering it cannot fail.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
    let encode = |message: String| OutputError::Encode {
        path: path.to_path_buf(),
        message,
    };
    let name = path
        .file_name()
        .ok_or_else(|| encode("not a file name".into()))?
        .to_string_lossy()
        .into_owned();
    let tmp = path.with_file_name(format!(".{name}.tmp.png"));
    let points = curves.iter().flat_map(|c| c.points.iter());
    let (mut t0, mut t1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(t, y) in points.filter(|(t, y)| t.is_finite() && y.is_finite()) {
        (t0, t1, y0, y1) = (t0.min(t), t1.max(t), y0.min(y), y1.max(y));
    }
    if t0 > t1 {
        (t0, t1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    let pad = 0.05 * (y1 - y0).max(1e-12 * y1.abs().max(1.0));
    let (y0, y1) = (y0 - pad, y1 + pad);
    let t1 = if t1 > t0 { t1 } else { t0 + 1.0 };
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(&tmp, (900, 600)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 24))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(t0..t1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style(("sans-serif", 16))
            .draw()?;
        for (k, c) in curves.iter().enumerate() {
            let colour = Palette99::pick(k).to_rgba();
            chart
                .draw_series(LineSeries::new(c.points.iter().copied(), colour.stroke_width(2)))?
                .label(c.name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 16))
            .draw()?;
        root.present()?;
        Ok(())
    })();
    match result {
        Ok(()) => std::fs::rename(&tmp, path).map_err(|cause| OutputError::Io {
            path: path.to_path_buf(),
            cause,
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(encode(e.to_string()))
        }
    }
}
