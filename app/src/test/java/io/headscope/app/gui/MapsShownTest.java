package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.headscope.app.gui.exec.DirectWorker;
import io.headscope.app.gui.export.Exports;
import io.headscope.app.gui.head.HeadViewModel;
import io.headscope.app.gui.main.MainViewModel;
import io.headscope.app.render.HeadMatrix;
import io.headscope.app.render.MapsShown;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Intact | as run | difference, checked by what must hold whatever the weights: a switch in layer 2
 * cannot change layers 1 and 2's other maps (they are computed before it acts), does change layer
 * 3's, and a head off in zero mode passes on nothing.
 */
class MapsShownTest {
  @TempDir Path dir;

  @Test
  void asRunMapsFeelTheSwitchOnlyAboveItAndTheExportSaysSo() throws Exception {
    Path tiny = TinyBert.create(3, 4, 11).writeTo(dir.resolve("tiny")).config().getParent();
    MainViewModel main = new MainViewModel(new DirectWorker(), new ModelRepository(dir.resolve("cache")));
    main.textAProperty().set("the cat sat on the mat because it was tired .");
    main.loadModel(tiny.toString());
    HeadViewModel head = new HeadViewModel(main.session());
    Head off = new Head(1, 2);
    main.toggleHead(off);

    main.session().mapsShownProperty().set(MapsShown.DIFFERENCE);
    for (Head h : Head.all(3, 4)) {
      main.select(h);
      HeadMatrix d = head.matrixProperty().get();
      assertThat(d.signed()).isTrue();
      if (h.layer() < 1 || (h.layer() == 1 && !h.equals(off))) {
        assertThat(d.max()).as("difference of %s", h).isZero();
      } else if (h.layer() == 2) {
        assertThat(d.max()).as("difference of %s", h).isGreaterThan(1e-6f);
      }
    }
    main.session().mapsShownProperty().set(MapsShown.AS_RUN);
    main.select(off);
    HeadMatrix asRun = head.matrixProperty().get();
    assertThat(asRun.max()).isZero(); // zero mode: the head's attention times 0
    assertThat(head.titleProperty().get()).contains("as run with 1 head off (zero)").contains("this head is off");
    main.session().mapsShownProperty().set(MapsShown.INTACT);
    assertThat(head.matrixProperty().get().max()).isGreaterThan(0f);

    Path json = dir.resolve("as-run.json");
    main.session().mapsShownProperty().set(MapsShown.AS_RUN);
    Exports.attentionJson(main.session().shownTrace(), json);
    JsonNode n = new ObjectMapper().readTree(json.toFile());
    assertThat(n.get("maps").asText()).isEqualTo("as-run");
    assertThat(n.get("disabled").get(0).asText()).isEqualTo("2-3");
    main.session().mapsShownProperty().set(MapsShown.INTACT);
    Exports.attentionJson(main.session().shownTrace(), json);
    assertThat(new ObjectMapper().readTree(json.toFile()).get("maps").asText()).isEqualTo("intact");
  }
}
