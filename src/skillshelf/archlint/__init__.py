"""skillshelf.archlint"""
