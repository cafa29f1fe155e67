package io.headscope.app.gui;

import static org.assertj.core.api.Assertions.assertThat;

import io.headscope.app.gui.dialog.FileAsker;
import io.headscope.app.gui.exec.FxWorker;
import io.headscope.app.gui.main.MainView;
import io.headscope.model.core.Head;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.testing.TinyBert;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.stage.Stage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** Export › Interactive page (HTML)… with real clicks: the current sentence and the heads switched off now. */
@ExtendWith(ApplicationExtension.class)
@Tag("ui")
class GuiPageExportTest {
  @TempDir static Path dir;
  static Path tiny;
  MainView view;
  Path target;

  @BeforeAll
  static void writeModel() {
    tiny = TinyBert.create(2, 3, 5).writeTo(dir.resolve("tiny")).config().getParent();
  }

  @Start
  void start(Stage stage) {
    view = HeadScopeApp.create(stage, new FxWorker(), new ModelRepository(dir.resolve("cache")));
    view.setFileAsker(FixedAnswers.saving(() -> target));
    stage.show();
    view.viewModel().textAProperty().set("the cat sat on the [MASK] .");
    view.viewModel().loadModel(tiny.toString());
  }

  private static void waitFor(BooleanSupplier condition) throws Exception {
    WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, condition::getAsBoolean);
    WaitForAsyncUtils.waitForFxEvents();
  }

  @Test
  void theExportMenuWritesThePageOfTheSentenceWithTheHeadsOff(FxRobot robot) throws Exception {
    waitFor(() -> view.viewModel().traceProperty().get() != null && !view.viewModel().busyProperty().get());
    robot.interact(() -> view.viewModel().toggleHead(new Head(1, 2)));
    robot.interact(() -> view.viewModel().session().mapsShownProperty().set(io.headscope.app.render.MapsShown.DIFFERENCE));
    waitFor(() -> !view.viewModel().busyProperty().get());
    target = dir.resolve("view.html");
    robot.clickOn("Export");
    robot.clickOn("Interactive page (HTML)…");
    waitFor(() -> Files.exists(target));
    String page = Files.readString(target, StandardCharsets.UTF_8);
    assertThat(page).startsWith("<!DOCTYPE html>").contains("Content-Security-Policy")
        .contains("\"text\":\"the cat sat on the [MASK] .\"").contains("\"disabled\":[\"2-3\"]")
        .contains("\"shown\":\"difference\"");
  }
}
