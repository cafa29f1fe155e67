package io.headscope.app.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import io.headscope.app.gui.Screens;
import io.headscope.app.gui.screen.ScreenDescriptor;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The floors of the window (docs/ARCHITECTURE.md): the app's packages form no cycle, and a screen stands
 * on the floors alone (session, job runner, dialog service, render), never on the main window or on
 * another screen. A screen package is one that declares a {@code static ScreenDescriptor}, the value
 * the descriptor list ({@code Screens.ALL}) names.
 */
class ScreensTest {
  private static final String GUI = "io.headscope.app.gui";
  /** The floors every screen and the main window stand on. */
  private static final String[] FLOORS = {GUI + ".screen..", GUI + ".dialog..", GUI + ".exec..", GUI + ".session..",
      GUI + ".style..", GUI + ".chart..", GUI + ".export..", GUI + ".fxml.."};
  static JavaClasses main;
  static List<String> screens;

  @BeforeAll
  static void importClasses() {
    main = MainClasses.all().that(com.tngtech.archunit.base.DescribedPredicate.describe("in " + GUI,
        c -> c.getPackageName().startsWith(GUI)));
    screens = main.stream()
        .filter(c -> c.getFields().stream().anyMatch(f -> f.getModifiers().contains(JavaModifier.STATIC)
            && f.getRawType().isEquivalentTo(ScreenDescriptor.class)))
        .map(JavaClass::getPackageName).distinct().sorted().toList();
  }

  @Test
  void everyDescribedScreenIsAPackageOfItsOwn() {
    assertThat(screens).hasSize(Screens.ALL.size());
  }

  @Test
  void theWindowsPackagesFormNoCycle() {
    slices().matching(GUI + ".(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void noScreenImportsTheMainWindow() {
    noClasses().that().resideInAnyPackage(screens.stream().map(p -> p + "..").toArray(String[]::new))
        .should().dependOnClassesThat().resideInAnyPackage(GUI + ".main..", GUI)
        .because("a screen reaches the window's state through the session and its dialogs through the service")
        .check(main);
  }

  @Test
  void noScreenImportsAnotherScreen() {
    for (String s : screens) {
      noClasses().that().resideInAPackage(s + "..")
          .should().dependOnClassesThat().resideInAnyPackage(
              screens.stream().filter(o -> !o.equals(s)).map(o -> o + "..").toArray(String[]::new))
          .because("what screens share (the corpus picker, the job skeleton) lives in the floors")
          .check(main);
    }
  }

  @Test
  void theFloorsKnowNoScreenAndNoWindow() {
    String[] above = Stream.concat(screens.stream().map(p -> p + ".."), Stream.of(GUI + ".main..", GUI))
        .toArray(String[]::new);
    noClasses().that().resideInAnyPackage(FLOORS)
        .should().dependOnClassesThat().resideInAnyPackage(above)
        .check(main);
  }

  @Test
  void theMainWindowKnowsScreensOnlyByTheirDescriptors() {
    noClasses().that().resideInAPackage(GUI + ".main..")
        .should().dependOnClassesThat().resideInAnyPackage(screens.stream().map(p -> p + "..").toArray(String[]::new))
        .because("the window lists what Screens.ALL gives it; adding a screen changes no MainView")
        .check(main);
  }
}
