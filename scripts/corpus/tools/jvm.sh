# JVM tools from Debian's packages: javac, Maven Surefire and Gradle (sourced). Maven Central is out
# of reach, so Maven resolves plugins and JUnit 4 from Debian's packaged repository
# (/usr/share/maven-repo) through a mirror in a generated settings.xml; Gradle runs offline with the
# JUnit 4 jars of Debian's packages. .NET is recorded as unavailable.

corpus_jvm() {
  install_debian default-jdk-headless maven libsurefire-java junit4 libmaven-compiler-plugin-java \
    libmaven-resources-plugin-java libmaven-jar-plugin-java maven-debian-helper libhamcrest-java gradle
  MAVEN_SETTINGS="$WORK/maven-settings.xml"
  cat >"$MAVEN_SETTINGS" <<XML
<settings>
  <localRepository>$WORK/m2</localRepository>
  <mirrors>
    <mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///usr/share/maven-repo</url></mirror>
  </mirrors>
</settings>
XML
  corpus_javac
  corpus_maven_surefire
  corpus_gradle
  corpus_junit
  corpus_dotnet_test
}

jvm_version() { env -i "$(tool_env "$WORK" | grep '^PATH=')" "$@" 2>&1 | head -n 1; }

# The first Maven run fills the local repository and prints resolution warnings; do it once,
# unrecorded, on a passing copy of the project.
maven_warm_up() {
  local dir="$WORK/maven-warm-up" env_lines=()
  mapfile -t env_lines < <(tool_env "$dir")
  CLASS_NAME=none CLASS_PROJECT=jvm prepare_project "$dir"
  (cd "$dir" && env -i "${env_lines[@]}" mvn -B -ntp -s "$MAVEN_SETTINGS" package) >"$WORK/maven-warm-up.txt" 2>&1 ||
    die "Maven cannot build a passing project from Debian's repository: see $WORK/maven-warm-up.txt"
  rm -rf "$dir"
}

corpus_javac() {
  want_tool javac || return 0
  tools_begin javac
  TOOLS_RUN+=(javac)
  tool_version javac "$(jvm_version javac -version)"
  maven_warm_up
  local javac_cmd='javac -d build/classes src/main/java/shop/*.java'
  local class description
  for class in cannot-find-symbol incompatible-types; do
    case $class in
      cannot-find-symbol) description="src/main/java/shop/Receipt.java calls Cart.totalWithTax, which does not exist: cannot find symbol" ;;
      incompatible-types) description="src/main/java/shop/Receipt.java assigns a String to an int: incompatible types" ;;
    esac
    class_begin javac "$class" jvm "$description"
    variant javac 'baseline: javac run directly on the sources' -- bash -c "$javac_cmd"
    variant shifted 'line shift: blank lines and a comment inserted at the top of Receipt.java' \
      --shift src/main/java/shop/Receipt.java -- bash -c "$javac_cmd"
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- bash -c "$javac_cmd"
    variant maven 'the same compile error through mvn -B compile ([ERROR] lines, absolute paths)' \
      -- mvn -B -ntp -s "$MAVEN_SETTINGS" compile
    variant maven-color 'colour: mvn -B compile with -Dstyle.color=always' \
      -- mvn -B -ntp -s "$MAVEN_SETTINGS" -Dstyle.color=always compile
    variant maven-tmp-dir 'mvn -B compile in another working directory under /tmp' --dir tmp \
      -- mvn -B -ntp -s "$MAVEN_SETTINGS" compile
    variant job-log 'GitHub Actions job log of mvn -B compile' --job-log 'mvn -B compile' \
      -- mvn -B -ntp -s "$MAVEN_SETTINGS" compile
  done
}

corpus_maven_surefire() {
  want_tool maven-surefire || return 0
  tools_begin maven-surefire
  TOOLS_RUN+=(maven-surefire)
  tool_version maven-surefire "$(jvm_version mvn -B --version | sed 's/\x1b\[[0-9;]*m//g'), maven-surefire-plugin 2.22.3, JUnit 4.13.2"
  maven_warm_up
  local mvn=(mvn -B -ntp -s "$MAVEN_SETTINGS")
  local class description shift_file
  for class in assertion exception parameterized; do
    case $class in
      assertion)
        description="shop.CartTest.addsShipping fails assertEquals: total with shipping expected:<949> but was:<449>"
        shift_file=src/test/java/shop/CartTest.java ;;
      exception)
        description="shop.CustomerTest.labelsACustomerWithoutCity errors with a NullPointerException thrown in Customer.label"
        shift_file=src/test/java/shop/CustomerTest.java ;;
      parameterized)
        description="JUnit 4 Parameterized case shop.DiscountTableTest.discount[1: discount(99, 50) = 50] fails: expected:<50> but was:<49>"
        shift_file=src/test/java/shop/DiscountTableTest.java ;;
    esac
    class_begin maven-surefire "$class" jvm "$description"
    variant default 'baseline: mvn -B test, no colour' -- "${mvn[@]}" test
    variant rerun 'another run of the baseline command (durations differ)' -- "${mvn[@]}" test
    variant reverse-order 'another test class order: -Dsurefire.runOrder=reversealphabetical' \
      -- "${mvn[@]}" -Dsurefire.runOrder=reversealphabetical test
    variant color 'colour: -Dstyle.color=always' -- "${mvn[@]}" -Dstyle.color=always test
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test class' \
      --shift "$shift_file" -- "${mvn[@]}" test
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- "${mvn[@]}" test
    variant job-log 'GitHub Actions job log of mvn -B test' --job-log 'mvn -B test' -- "${mvn[@]}" test
  done
}

corpus_gradle() {
  want_tool gradle || return 0
  tools_begin gradle
  TOOLS_RUN+=(gradle)
  local gradle_env="GRADLE_USER_HOME=$WORK/gradle-home"
  tool_version gradle "$(env -i "$(tool_env "$WORK" | grep '^PATH=')" "$gradle_env" gradle --version 2>/dev/null |
    grep '^Gradle ') (Debian's package; newer Gradle prints '> Task :test FAILED' and 'method() FAILED')"
  local gradle=(gradle --no-daemon --offline)
  local class description shift_file
  for class in assertion exception; do
    case $class in
      assertion)
        description="shop.CartTest > addsShipping fails with java.lang.AssertionError (expected 949, was 449)"
        shift_file=src/test/java/shop/CartTest.java ;;
      exception)
        description="shop.CustomerTest > labelsACustomerWithoutCity fails with a NullPointerException thrown in Customer.label"
        shift_file=src/test/java/shop/CustomerTest.java ;;
    esac
    class_begin gradle "$class" jvm "$description"
    variant default 'baseline: gradle test, plain console' --env "$gradle_env" -- "${gradle[@]}" test
    variant rerun 'another run of the baseline command (durations differ)' --env "$gradle_env" \
      -- "${gradle[@]}" test
    variant color 'colour: --console=rich' --env "$gradle_env" -- "${gradle[@]}" --console=rich test
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test class' \
      --env "$gradle_env" --shift "$shift_file" -- "${gradle[@]}" test
    variant tmp-dir 'another working directory under /tmp' --dir tmp --env "$gradle_env" -- "${gradle[@]}" test
    variant job-log 'GitHub Actions job log of gradle test' --env "$gradle_env" --job-log 'gradle test' \
      -- "${gradle[@]}" test
  done
}

# JUnit 4's own text runner, JUnitCore, on classes compiled with javac: the form Ant's plain
# formatter, many Makefiles and IDE consoles show.
corpus_junit() {
  want_tool junit || return 0
  tools_begin junit
  TOOLS_RUN+=(junit)
  tool_version junit "JUnit 4.13.2 (org.junit.runner.JUnitCore) on $(jvm_version java -version)"
  local cp=build/classes:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
  local compile="mkdir -p build/classes && javac -d build/classes -cp $cp src/main/java/shop/*.java src/test/java/shop/*.java"
  local class description shift_file test_class
  for class in assertion exception; do
    case $class in
      assertion)
        description="shop.CartTest.addsShipping fails assertEquals: total with shipping expected:<949> but was:<449>"
        shift_file=src/test/java/shop/CartTest.java test_class=shop.CartTest ;;
      exception)
        description="shop.CustomerTest.labelsACustomerWithoutCity throws a NullPointerException in Customer.label"
        shift_file=src/test/java/shop/CustomerTest.java test_class=shop.CustomerTest ;;
    esac
    class_begin junit "$class" jvm "$description"
    variant default 'baseline: java org.junit.runner.JUnitCore on the failing class and DiscountTest' \
      -- bash -c "$compile && java -cp $cp org.junit.runner.JUnitCore $test_class shop.DiscountTest"
    variant rerun 'another run of the baseline command (timings differ)' \
      -- bash -c "$compile && java -cp $cp org.junit.runner.JUnitCore $test_class shop.DiscountTest"
    variant reversed-order 'the test classes given in the other order' \
      -- bash -c "$compile && java -cp $cp org.junit.runner.JUnitCore shop.DiscountTest $test_class"
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test class' \
      --shift "$shift_file" \
      -- bash -c "$compile && java -cp $cp org.junit.runner.JUnitCore $test_class shop.DiscountTest"
    variant tmp-dir 'another working directory under /tmp' --dir tmp \
      -- bash -c "$compile && java -cp $cp org.junit.runner.JUnitCore $test_class shop.DiscountTest"
    variant job-log 'GitHub Actions job log of the JUnitCore run' \
      --job-log "java -cp $cp org.junit.runner.JUnitCore $test_class shop.DiscountTest" \
      -- bash -c "$compile && java -cp $cp org.junit.runner.JUnitCore $test_class shop.DiscountTest"
  done
}

corpus_dotnet_test() {
  want_tool dotnet-test || return 0
  TOOLS_RUN+=(dotnet-test)
  if debian_available dotnet-sdk-8.0 || debian_available dotnet8; then
    die "a .NET SDK is packaged here: add dotnet-test classes to scripts/corpus/tools/jvm.sh"
  fi
  tool_unavailable dotnet-test "no .NET SDK in Debian $(. /etc/os-release && echo "$VERSION_CODENAME")'s repositories (apt-cache search dotnet finds only GTK# libraries), and Microsoft's package feed is out of reach"
}
