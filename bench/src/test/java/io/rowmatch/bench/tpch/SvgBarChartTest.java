package io.rowmatch.bench.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class SvgBarChartTest {
  @Test
  void niceCeilings() {
    assertEquals(1.0, SvgBarChart.niceCeiling(0));
    assertEquals(2.0, SvgBarChart.niceCeiling(1.5));
    assertEquals(50.0, SvgBarChart.niceCeiling(23));
    assertEquals(100.0, SvgBarChart.niceCeiling(100));
  }

  @Test
  void tickLabelsUseTheDigitsTheyNeed() {
    assertEquals("0", SvgBarChart.tick(0));
    assertEquals("12.5", SvgBarChart.tick(12.5));
    assertEquals("50", SvgBarChart.tick(50));
    assertEquals("0.25", SvgBarChart.tick(0.25));
  }

  @Test
  void rendersWellFormedSvgWithOneBarPerValue() throws Exception {
    String svg = SvgBarChart.render("a < b & c", "seconds", List.of("q1", "q2"), List.of("vanilla", "rowmatch"),
        List.of(new double[] {1.5, 1.0}, new double[] {2.0, Double.NaN}));
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    long bars = 0;
    for (int i = 0; i < doc.getElementsByTagName("rect").getLength(); i++) {
      if (doc.getElementsByTagName("rect").item(i).getChildNodes().getLength() > 0) {
        bars++;
      }
    }
    assertEquals(3, bars, "a missing (NaN) value draws no bar");
  }
}
