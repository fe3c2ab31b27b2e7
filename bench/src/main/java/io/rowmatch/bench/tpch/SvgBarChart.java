package io.rowmatch.bench.tpch;

import java.util.List;
import java.util.Locale;

/** A grouped bar chart as standalone SVG: one group per label, one bar per series. No dependency needed. */
public final class SvgBarChart {
  private static final String[] COLORS = {"#8c8c8c", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
  private static final int PLOT_HEIGHT = 320;
  private static final int LEFT = 60;
  private static final int TOP = 50;
  private static final int BAR = 12;
  private static final int GAP = 14;

  private SvgBarChart() {}

  public static String render(String title, String yLabel, List<String> labels, List<String> series,
      List<double[]> values) {
    double max = 0;
    for (double[] group : values) {
      for (double v : group) {
        if (!Double.isNaN(v)) {
          max = Math.max(max, v);
        }
      }
    }
    double top = niceCeiling(max);
    int groupWidth = series.size() * BAR + GAP;
    int width = LEFT + labels.size() * groupWidth + 20;
    int height = TOP + PLOT_HEIGHT + 70;
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n",
        width, height));
    svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
    svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"13\">%s</text>%n", LEFT, escape(title)));
    for (int i = 0; i < series.size(); i++) {
      int x = LEFT + i * 110;
      svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"28\" width=\"10\" height=\"10\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"37\">%s</text>%n", x, COLORS[i % COLORS.length], x + 14, escape(series.get(i))));
    }
    for (int tick = 0; tick <= 4; tick++) {
      double value = top * tick / 4;
      double y = TOP + PLOT_HEIGHT - PLOT_HEIGHT * tick / 4.0;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
          + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
          LEFT, y, width - 20, y, LEFT - 4, y + 4, tick(value)));
    }
    svg.append(String.format(Locale.ROOT,
        "<text transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">%s</text>%n",
        TOP + PLOT_HEIGHT / 2, escape(yLabel)));
    for (int g = 0; g < labels.size(); g++) {
      int x0 = LEFT + g * groupWidth + GAP / 2;
      for (int s = 0; s < series.size(); s++) {
        double v = values.get(g)[s];
        if (Double.isNaN(v) || top == 0) {
          continue;
        }
        double h = PLOT_HEIGHT * v / top;
        svg.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %s s</title></rect>%n",
            x0 + s * BAR, TOP + PLOT_HEIGHT - h, BAR - 1, h, COLORS[s % COLORS.length],
            escape(labels.get(g)), escape(series.get(s)), trim(v)));
      }
      svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
          x0 + series.size() * BAR / 2, TOP + PLOT_HEIGHT + 16, escape(labels.get(g))));
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  /** 1, 2 or 5 times a power of ten, at least {@code max}. */
  static double niceCeiling(double max) {
    if (max <= 0) {
      return 1;
    }
    double power = Math.pow(10, Math.floor(Math.log10(max)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * power >= max) {
        return step * power;
      }
    }
    return 10 * power;
  }

  /** Axis labels: as few digits as the value needs (0, 12.5, 25). */
  static String tick(double value) {
    return java.math.BigDecimal.valueOf(value).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
  }

  private static String trim(double value) {
    return String.format(Locale.ROOT, value >= 10 ? "%.0f" : value >= 1 ? "%.1f" : "%.2f", value);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
