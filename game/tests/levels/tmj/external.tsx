<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" name="test" tilewidth="32" tileheight="32" tilecount="4" columns="4">
  <image source="t.png" width="128" height="32"/>
  <tile id="0" type="Solid"/>
  <tile id="1" type="OneWay"/>
  <tile id="2" type="Slope"><properties><property name="left" type="float" value="0"/><property name="right" type="float" value="1"/></properties></tile>
</tileset>
